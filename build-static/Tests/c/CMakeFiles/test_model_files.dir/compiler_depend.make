# Empty compiler generated dependencies file for test_model_files.
# This may be replaced when dependencies are built.
