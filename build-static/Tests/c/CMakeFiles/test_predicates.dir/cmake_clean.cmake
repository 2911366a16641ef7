file(REMOVE_RECURSE
  "CMakeFiles/test_predicates.dir/test_predicates.c.o"
  "CMakeFiles/test_predicates.dir/test_predicates.c.o.d"
  "predicate_sample.h"
  "test_predicates"
  "test_predicates.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_predicates.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
