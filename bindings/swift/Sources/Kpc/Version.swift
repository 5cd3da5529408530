import CKpc

/// The version of the libkpc C library compiled into this package.
public enum Version {
    /// The version string, e.g. `"0.1.0"` (`kp_version_string()`). Thread-safe.
    public static var string: String { String(cString: kp_version_string()) }
    /// The version as `major * 10000 + minor * 100 + patch` (`kp_version_number()`). Thread-safe.
    public static var number: Int { Int(kp_version_number()) }
}
