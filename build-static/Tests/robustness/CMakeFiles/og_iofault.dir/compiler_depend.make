# Empty compiler generated dependencies file for og_iofault.
# This may be replaced when dependencies are built.
