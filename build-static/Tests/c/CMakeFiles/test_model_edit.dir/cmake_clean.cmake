file(REMOVE_RECURSE
  "CMakeFiles/test_model_edit.dir/test_model_edit.c.o"
  "CMakeFiles/test_model_edit.dir/test_model_edit.c.o.d"
  "test_model_edit"
  "test_model_edit.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_model_edit.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
