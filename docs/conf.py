"""Sphinx configuration: the Markdown pages of docs/ plus the API reference from docstrings."""

import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "src")))

project = "graphblast"
author = "the graphblast developers"
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False}
myst_heading_anchors = 3
html_theme = "alabaster"
suppress_warnings = ["myst.xref_missing"]
