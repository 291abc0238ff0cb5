#!/usr/bin/env bash
# Builds the documentation site into docs/_build/html, with every warning an error.
# Needs treeopt installed (pip install .) and pip install ".[docs]".
# The gallery's examples run during the build (sphinx-gallery) and make its figures.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf _build auto_examples generated sg_execution_times.rst
exec python -m sphinx -W --keep-going -b html . _build/html "$@"
