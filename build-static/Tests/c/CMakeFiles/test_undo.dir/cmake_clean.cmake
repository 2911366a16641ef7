file(REMOVE_RECURSE
  "CMakeFiles/test_undo.dir/test_undo.c.o"
  "CMakeFiles/test_undo.dir/test_undo.c.o.d"
  "test_undo"
  "test_undo.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_undo.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
