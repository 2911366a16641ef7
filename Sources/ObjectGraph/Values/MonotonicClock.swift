#if canImport(Glibc)
import Glibc
#endif

/// Seconds on the monotonic clock, for ages and deadlines (never wall-clock time).
enum MonotonicClock {
    static func seconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
