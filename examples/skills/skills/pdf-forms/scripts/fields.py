"""Prints the names of a PDF form's fields, one a line."""
import sys

from pypdf import PdfReader

for name in PdfReader(sys.argv[1]).get_fields() or {}:
    print(name)
