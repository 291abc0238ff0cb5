"""Sphinx configuration of the treeopt documentation (``docs/build.sh`` builds it)."""

import os
import re

import matplotlib

import treeopt

matplotlib.use("Agg")

project = "treeopt"
author = "the treeopt developers"
copyright = "treeopt developers"
version = release = treeopt.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

exclude_patterns = ["_build", "examples/README.rst", "auto_examples/*.ipynb", "auto_examples/*.py"]
templates_path = ["_templates"]

# API pages from the docstrings (numpydoc format)
autosummary_generate = True
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "show_memory": False,
    "plot_gallery": "True",
}

html_theme = "pydata_sphinx_theme"
html_title = f"treeopt {release}"
html_static_path = ["_static"]
html_favicon = "_static/treeopt.svg"
html_logo = "_static/treeopt.svg"
html_theme_options = {
    "navbar_align": "left",
    "logo": {"text": "treeopt"},
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
html_context = {"default_mode": "light"}

# One thread of BLAS while examples run: the build shares its machine.
os.environ.setdefault("OMP_NUM_THREADS", "1")


_REF_ROLE = re.compile(r":ref:`([^`<]+?)(?:\s*<[^`>]*>)?`")
_UNDERSCORED_NAMES = re.compile(r"^(\s*)(\w+_(?:, \w+_)+)(\s*:.*)$")
_NAME_BEFORE_PUNCTUATION = re.compile(r"(?<=\w)_(?=[,)])")
_SHAPE = re.compile(r"(?<!`)shape \([^)`]*\)")


def _plain_docstring(app, what, name, obj, options, lines):
    """Docstring fixes for this site, before numpydoc reads them: scikit-learn's
    inherited methods (``score``) link to labels of scikit-learn's own site, kept here as
    plain text; an attribute entry naming several attributes (``n_features_in_,
    feature_names_in_ :``) or a shape (``shape (n_features_in_,)``) would read trailing
    underscores as reST links."""
    from_sklearn = (getattr(obj, "__module__", None) or "").startswith("sklearn")
    for i, line in enumerate(lines):
        if from_sklearn:
            line = _REF_ROLE.sub(r"\1", line)
        match = _UNDERSCORED_NAMES.match(line)
        if match:
            names = match.group(2).replace("_,", "\\_,")
            line = f"{match.group(1)}{names[:-1]}\\_{match.group(3)}"
        # a shape such as "shape (n_samples, n_features_out_)"
        line = _SHAPE.sub(lambda m: _NAME_BEFORE_PUNCTUATION.sub(r"\\_", m.group(0)), line)
        lines[i] = line


def setup(app):
    # before numpydoc's own handler (priority 500)
    app.connect("autodoc-process-docstring", _plain_docstring, priority=100)
