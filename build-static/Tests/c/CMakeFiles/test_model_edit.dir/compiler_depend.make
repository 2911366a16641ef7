# Empty compiler generated dependencies file for test_model_edit.
# This may be replaced when dependencies are built.
