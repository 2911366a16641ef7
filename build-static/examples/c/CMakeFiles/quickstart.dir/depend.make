# Empty dependencies file for quickstart.
# This may be replaced when dependencies are built.
