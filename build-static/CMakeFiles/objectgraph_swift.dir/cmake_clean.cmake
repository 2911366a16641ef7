file(REMOVE_RECURSE
  "CMakeFiles/objectgraph_swift"
  "swiftpm-static/release/libobjectgraph.so"
  "swiftpm-static/release/libobjectgraph.so.0"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/objectgraph_swift.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
