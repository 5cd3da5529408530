#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Calls `body` with C copies of `strings` (an array of pointers followed by a NULL, as
/// argv wants) and their number; the copies are freed when it returns. libkpc copies what
/// it keeps, so nothing outlives the call.
func withCStringArray<R>(_ strings: [String],
                         _ body: (UnsafePointer<UnsafePointer<CChar>?>?, Int) throws -> R) throws -> R {
    var pointers: [UnsafePointer<CChar>?] = []
    pointers.reserveCapacity(strings.count + 1)
    defer {
        for p in pointers { free(UnsafeMutablePointer(mutating: p)) }
    }
    for string in strings {
        guard let copy = strdup(string) else {
            throw KpcError(status: .outOfMemory, message: "strdup failed copying \"\(string)\" for libkpc")
        }
        pointers.append(UnsafePointer(copy))
    }
    pointers.append(nil)
    return try pointers.withUnsafeBufferPointer { try body($0.baseAddress, strings.count) }
}
