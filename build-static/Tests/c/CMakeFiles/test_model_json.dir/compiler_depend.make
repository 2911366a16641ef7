# Empty compiler generated dependencies file for test_model_json.
# This may be replaced when dependencies are built.
