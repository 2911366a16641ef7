file(REMOVE_RECURSE
  "CMakeFiles/og_crash.dir/og_crash.c.o"
  "CMakeFiles/og_crash.dir/og_crash.c.o.d"
  "og_crash"
  "og_crash.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/og_crash.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
