# Empty compiler generated dependencies file for soak_contexts.
# This may be replaced when dependencies are built.
