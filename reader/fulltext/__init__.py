"""Papers' full texts (issue 30): fetched from arXiv's HTML or PDF (fetch.py), read by a streaming
LaTeXML reader (html.py) or pypdf (pdf.py), cleaned for the terminal (clean.py), kept in the data
directory (store.py), searched by `text:` (index.py) and laid out as lines (render.py). No
Textual here: the app's view is reader/app/screens/full_text.py, the commands reader/commands/text.py."""
