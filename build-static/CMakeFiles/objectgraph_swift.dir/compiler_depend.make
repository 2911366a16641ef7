# Empty custom commands generated dependencies file for objectgraph_swift.
# This may be replaced when dependencies are built.
