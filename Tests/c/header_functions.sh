#!/bin/sh
# Prints the functions declared in a header, one per line, sorted.
# Usage: header_functions.sh CC HEADER
# The preprocessor drops the comments, which mention names that are not
# declarations (og_<type>_release, og_object_*_at). Typedefs of callback types
# (`typedef og_status (*og_validation_fn)(...)`) are not functions, nor are a
# callback table's members (`og_status (*execute_save)(...)`).
set -eu
"$1" -E -P -x c "$2" |
  grep -v '^[[:space:]]*typedef' |
  sed 's/og_[A-Za-z0-9_]*[[:space:]]*(\*//g' |
  grep -o 'og_[A-Za-z0-9_]*[[:space:]]*(' |
  sed 's/[[:space:]]*($//' |
  LC_ALL=C sort -u
