# Empty compiler generated dependencies file for migration.
# This may be replaced when dependencies are built.
