file(REMOVE_RECURSE
  "CMakeFiles/test_model_json.dir/test_model_json.c.o"
  "CMakeFiles/test_model_json.dir/test_model_json.c.o.d"
  "test_model_json"
  "test_model_json.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_model_json.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
