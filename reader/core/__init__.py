"""Pure logic over papers: the query language, momentum, BibTeX. No I/O, no Textual."""
