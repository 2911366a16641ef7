file(REMOVE_RECURSE
  "CMakeFiles/test_predicate_ids.dir/test_predicate_ids.c.o"
  "CMakeFiles/test_predicate_ids.dir/test_predicate_ids.c.o.d"
  "test_predicate_ids"
  "test_predicate_ids.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_predicate_ids.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
