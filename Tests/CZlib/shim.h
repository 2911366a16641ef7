// zlib, for the tests only: ObjectGraphTests checks the DEFLATE decoder
// (Sources/ObjectGraph/Values/Inflate.swift) against it. The library itself does not link it.
#include <zlib.h>
