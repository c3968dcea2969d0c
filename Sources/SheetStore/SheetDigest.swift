import Crypto
import Foundation

/// A sheet's identity in the store: the SHA-256 of its file's bytes, as 64 lowercase hex digits. A rerun
/// of the same file finds its earlier result by it, so the digest of given bytes must never change.
///
/// swift-crypto's SHA-256 (BoringSSL, with the CPU's SHA instructions where it has them), over the bytes
/// the loader has already read: the file is read once, and the same bytes are hashed and decoded.
public enum SheetDigest {
    public static func hex(of bytes: some DataProtocol) -> String {
        var text = [UInt8]()
        text.reserveCapacity(2 * SHA256.byteCount)
        let digits = Array("0123456789abcdef".utf8)
        for byte in SHA256.hash(data: bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
