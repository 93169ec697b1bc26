"""challenge.html's words and layout, shared by the page writer (render, html, the template) and
the page reader (generator/challenge/page.py, the importer, the checks).

`vocabulary` holds the words: the standard sections' titles, the performance bullet, the example
labels. Each family of `page:` layout flags has one module that writes the flags and reads them
back, side by side: `lists` (item indentation), `headings` (indentation and blank lines around the
<h2>s), `pre` (a <pre> example's lines) and `matrix` (a bmatrix example's parts); `examples`
picks the family that writes an example from the form of its data.
"""
