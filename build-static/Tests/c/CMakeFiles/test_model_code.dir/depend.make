# Empty dependencies file for test_model_code.
# This may be replaced when dependencies are built.
