import Foundation

extension PackageError {
    /// Turns any error from the file system or a seam into a `PackageError`, keeping a full disk recognisable.
    static func wrapping(_ error: any Error, operation: String, path: String) -> PackageError {
        if let packageError = error as? PackageError { return packageError }
        if let posix = error as? POSIXError, posix.code == .ENOSPC || posix.code == .EDQUOT {
            return .diskFull(path: path)
        }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain,
            nsError.code == Int(ENOSPC) || nsError.code == Int(EDQUOT)
        {
            return .diskFull(path: path)
        }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain, underlying.code == Int(ENOSPC)
        {
            return .diskFull(path: path)
        }
        return .fileSystem(operation: operation, path: path, reason: "\(error)")
    }
}
