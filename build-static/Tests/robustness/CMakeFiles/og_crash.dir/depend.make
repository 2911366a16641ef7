# Empty dependencies file for og_crash.
# This may be replaced when dependencies are built.
