"""arXiv's export API and announcement feeds: HTTP client and parsers. No Textual, no storage."""
