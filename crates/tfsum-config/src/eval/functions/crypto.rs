//! Hashes, UUIDs and `rsadecrypt` (Terraform `internal/lang/funcs/crypto.go`): `md5`,
//! `sha1`, `sha256`, `sha512` (lowercase hex), `base64sha256`, `base64sha512`, `uuid`,
//! `uuidv5`, `bcrypt`, `rsadecrypt`. The `file…` variants are in `filesystem.rs` and
//! share [`enum@Hash`].

use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::DecodePrivateKey;
use sha2::Digest;

use super::encoding::{decode_base64, BASE64};
use super::{string_arg, Ctx};
use crate::eval::value::Value;
use base64::Engine;

/// A hash the functions compute.
#[derive(Clone, Copy)]
pub(super) enum Hash {
    Md5,
    Sha1,
    Sha256,
    Sha512,
}

impl Hash {
    pub(super) fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Md5 => ::md5::Md5::digest(data).to_vec(),
            Hash::Sha1 => sha1_checked::Sha1::digest(data).to_vec(),
            Hash::Sha256 => sha2::Sha256::digest(data).to_vec(),
            Hash::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }

    pub(super) fn hex(self, data: &[u8]) -> Value {
        Value::String(hex::encode(self.digest(data)))
    }

    pub(super) fn base64(self, data: &[u8]) -> Value {
        Value::String(BASE64.encode(self.digest(data)))
    }
}

pub(super) fn md5(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Hash::Md5.hex(string_arg(&args, 0)?.as_bytes()))
}

pub(super) fn sha1(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Hash::Sha1.hex(string_arg(&args, 0)?.as_bytes()))
}

pub(super) fn sha256(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Hash::Sha256.hex(string_arg(&args, 0)?.as_bytes()))
}

pub(super) fn sha512(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Hash::Sha512.hex(string_arg(&args, 0)?.as_bytes()))
}

pub(super) fn base64sha256(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Hash::Sha256.base64(string_arg(&args, 0)?.as_bytes()))
}

pub(super) fn base64sha512(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Hash::Sha512.base64(string_arg(&args, 0)?.as_bytes()))
}

/// `bcrypt(s, cost?)`: a salted hash, different on every call. Terraform's `init` only
/// ever sees it unknown (an impure function), so tfsum does not compute one.
pub(super) fn bcrypt(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    if args.len() > 2 {
        return Err("bcrypt() takes no more than two arguments".into());
    }
    Err("tfsum cannot compute bcrypt: its result is random, and Terraform knows it only when applying".into())
}

/// A UUID's text: 8-4-4-4-12 lowercase hex digits.
fn uuid_text(bytes: &[u8; 16]) -> String {
    let hex = hex::encode(bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// `uuid()`: a random (version 4) UUID.
pub(super) fn uuid(_: &Ctx<'_>, _: Vec<Value>) -> Result<Value, String> {
    let mut bytes = fastrand::u128(..).to_be_bytes();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Ok(Value::String(uuid_text(&bytes)))
}

/// A UUID as Go's `uuid.Parse` reads it: `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, with an
/// optional `urn:uuid:` prefix or braces, or 32 hex digits.
fn parse_uuid(text: &str) -> Result<[u8; 16], String> {
    let inner = match text.len() {
        36 => text,
        45 if text[..9].eq_ignore_ascii_case("urn:uuid:") => &text[9..],
        38 if text.starts_with('{') && text.ends_with('}') => &text[1..37],
        32 => {
            let bytes = hex::decode(text).map_err(|_| "invalid UUID format".to_string())?;
            return bytes
                .try_into()
                .map_err(|_| "invalid UUID format".to_string());
        }
        n => return Err(format!("invalid UUID length: {n}")),
    };
    let dashes = [8, 13, 18, 23];
    if dashes
        .iter()
        .any(|&i| inner.as_bytes().get(i) != Some(&b'-'))
    {
        return Err("invalid UUID format".into());
    }
    let digits: String = inner.chars().filter(|c| *c != '-').collect();
    let bytes = hex::decode(digits).map_err(|_| "invalid UUID format".to_string())?;
    bytes
        .try_into()
        .map_err(|_| "invalid UUID format".to_string())
}

/// `uuidv5(namespace, name)`: the name-based (SHA-1) UUID of `name` in `namespace`,
/// which is `dns`, `url`, `oid`, `x500` or a UUID.
pub(super) fn uuidv5(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let namespace = string_arg(&args, 0)?;
    let name = string_arg(&args, 1)?;
    let well_known = |last: u8| {
        let mut id = [
            0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4,
            0x30, 0xc8,
        ];
        id[3] = last;
        id
    };
    let id = match namespace.as_str() {
        "dns" => well_known(0x10),
        "url" => well_known(0x11),
        "oid" => well_known(0x12),
        "x500" => well_known(0x14),
        other => parse_uuid(other)
            .map_err(|e| format!("uuidv5() doesn't support namespace {other} ({e})"))?,
    };
    let mut input = id.to_vec();
    input.extend_from_slice(name.as_bytes());
    let digest = Hash::Sha1.digest(&input);
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x50;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Ok(Value::String(uuid_text(&bytes)))
}

/// `rsadecrypt(ciphertext, key)`: base64 `ciphertext` decrypted with PKCS #1 v1.5 by the
/// RSA private key in PEM (`RSA PRIVATE KEY` or `PRIVATE KEY`). Terraform also reads
/// OpenSSH's key format; tfsum does not.
pub(super) fn rsadecrypt(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let ciphertext = string_arg(&args, 0)?;
    let pem = string_arg(&args, 1)?;
    let bytes = decode_base64(&ciphertext).map_err(|_| {
        format!("failed to decode input {ciphertext:?}: cipher text must be base64-encoded")
    })?;
    let pem = pem.trim();
    let key = if pem.contains("BEGIN RSA PRIVATE KEY") {
        rsa::RsaPrivateKey::from_pkcs1_pem(pem)
            .map_err(|e| format!("invalid ASN1 data in the given private key: {e}"))?
    } else if pem.contains("BEGIN PRIVATE KEY") {
        rsa::RsaPrivateKey::from_pkcs8_pem(pem)
            .map_err(|e| format!("invalid ASN1 data in the given private key: {e}"))?
    } else if pem.contains("BEGIN OPENSSH PRIVATE KEY") {
        return Err(
            "invalid private key: tfsum reads RSA keys in PEM (PKCS #1 or PKCS #8), not OpenSSH's format".into(),
        );
    } else {
        return Err("invalid private key: no key found".into());
    };
    let plain = key
        .decrypt(rsa::Pkcs1v15Encrypt, &bytes)
        .map_err(|_| "failed to decrypt: decryption error".to_string())?;
    String::from_utf8(plain)
        .map(Value::String)
        .map_err(|_| "the decrypted text is not valid UTF-8".to_string())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::eval::functions::tests::{check, check_in, s, Case, TestScope};

    /// Cases from Terraform `internal/lang/funcs/crypto_test.go`.
    #[test]
    fn crypto_functions() {
        let cases: &[Case] = &[
            ("md5(\"tada\")", Ok(s("ce47d07243bb6eaf5e1322c81baf9bbf"))),
            ("md5(\"\")", Ok(s("d41d8cd98f00b204e9800998ecf8427e"))),
            ("sha1(\"test\")", Ok(s("a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"))),
            ("sha256(\"test\")", Ok(s("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"))),
            ("sha512(\"test\")", Ok(s("ee26b0dd4af7e749aa1a8ee3c10ae9923f618980772e473f8819a5d4940e0db27ac185f8a0e1d5f84f88bc887fd67b143732c304cc5fa9ad8e6f57f50028a8ff"))),
            ("base64sha256(\"test\")", Ok(s("n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg="))),
            ("base64sha512(\"test\")", Ok(s("7iaw3Ur350mqGo7jwQrpkj9hiYB3Lkc/iBml1JQODbJ6wYX4oOHV+E+IvIh/1nsUNzLDBMxfqa2Ob1f1ACio/w=="))),
            ("uuidv5(\"dns\", \"tada\")", Ok(s("faa898db-9b9d-5b75-86a9-149e7bb8e3b8"))),
            ("uuidv5(\"url\", \"tada\")", Ok(s("2c1ff6b4-211f-577e-94de-d978b0caa16e"))),
            ("uuidv5(\"oid\", \"tada\")", Ok(s("61eeea26-5176-5288-87fc-232d6ed30d2f"))),
            ("uuidv5(\"x500\", \"tada\")", Ok(s("7e12415e-f7c9-57c3-9e43-52dc9950d264"))),
            ("uuidv5(\"6ba7b810-9dad-11d1-80b4-00c04fd430c8\", \"tada\")", Ok(s("faa898db-9b9d-5b75-86a9-149e7bb8e3b8"))),
            ("uuidv5(\"{6ba7b810-9dad-11d1-80b4-00c04fd430c8}\", \"tada\")", Ok(s("faa898db-9b9d-5b75-86a9-149e7bb8e3b8"))),
            ("uuidv5(\"6ba7b8109dad11d180b400c04fd430c8\", \"tada\")", Ok(s("faa898db-9b9d-5b75-86a9-149e7bb8e3b8"))),
            ("uuidv5(\"tada\", \"tada\")", Err("uuidv5() doesn't support namespace tada")),
            ("bcrypt(\"test\")", Err("tfsum cannot compute bcrypt")),
            ("length(uuid())", Ok(crate::eval::value::Value::Number(36.0))),
            ("substr(uuid(), 14, 1)", Ok(s("4"))),
            ("uuid() != uuid()", Ok(crate::eval::value::Value::Bool(true))),
        ];
        check(cases);
    }

    const CIPHER: &str = "eczGaDhXDbOFRZGhjx2etVzWbRqWDlmq0bvNt284JHVbwCgObiuyX9uV0LSAMY707IEgMkExJqXmsB4OWKxvB7epRB9G/3+F+pcrQpODlDuL9oDUAsa65zEpYF0Wbn7Oh7nrMQncyUPpyr9WUlALl0gRWytOA23S+y5joa4M34KFpawFgoqTu/2EEH4Xl1zo+0fy73fEto+nfkUY+meuyGZ1nUx/+DljP7ZqxHBFSlLODmtuTMdswUbHbXbWneW51D7Jm7xB8nSdiA2JQNK5+Sg5x8aNfgvFTt/m2w2+qpsyFa5Wjeu6fZmXSl840CA07aXbk9vN4I81WmJyblD/ZA==";

    /// The key pair of Terraform's `crypto_test.go` (`PrivateKey`), a test vector.
    const KEY: &str = "-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAgUElV5mwqkloIrM8ZNZ72gSCcnSJt7+/Usa5G+D15YQUAdf9
c1zEekTfHgDP+04nw/uFNFaE5v1RbHaPxhZYVg5ZErNCa/hzn+x10xzcepeS3KPV
Xcxae4MR0BEegvqZqJzN9loXsNL/c3H/B+2Gle3hTxjlWFb3F5qLgR+4Mf4ruhER
1v6eHQa/nchi03MBpT4UeJ7MrL92hTJYLdpSyCqmr8yjxkKJDVC2uRrr+sTSxfh7
r6v24u/vp/QTmBIAlNPgadVAZw17iNNb7vjV7Gwl/5gHXonCUKURaV++dBNLrHIZ
pqcAM8wHRph8mD1EfL9hsz77pHewxolBATV+7QIDAQABAoIBAC1rK+kFW3vrAYm3
+8/fQnQQw5nec4o6+crng6JVQXLeH32qXShNf8kLLG/Jj0vaYcTPPDZw9JCKkTMQ
0mKj9XR/5DLbBMsV6eNXXuvJJ3x4iKW5eD9WkLD4FKlNarBRyO7j8sfPTqXW7uat
NxWdFH7YsSRvNh/9pyQHLWA5OituidMrYbc3EUx8B1GPNyJ9W8Q8znNYLfwYOjU4
Wv1SLE6qGQQH9Q0WzA2WUf8jklCYyMYTIywAjGb8kbAJlKhmj2t2Igjmqtwt1PYc
pGlqbtQBDUiWXt5S4YX/1maIQ/49yeNUajjpbJiH3DbhJbHwFTzP3pZ9P9GHOzlG
kYR+wSECgYEAw/Xida8kSv8n86V3qSY/I+fYQ5V+jDtXIE+JhRnS8xzbOzz3v0WS
Oo5H+o4nJx5eL3Ghb3Gcm0Jn46dHrxinHbm+3RjXv/X6tlbxIYjRSQfHOTSMCTvd
qcliF5vC6RCLXuc7R+IWR1Ky6eDEZGtrvt3DyeYABsp9fRUFR/6NluUCgYEAqNsw
1aSl7WJa27F0DoJdlU9LWerpXcazlJcIdOz/S9QDmSK3RDQTdqfTxRmrxiYI9LEs
mkOkvzlnnOBMpnZ3ZOU5qIRfprecRIi37KDAOHWGnlC0EWGgl46YLb7/jXiWf0AG
Y+DfJJNd9i6TbIDWu8254/erAS6bKMhW/3q7f2kCgYAZ7Id/BiKJAWRpqTRBXlvw
BhXoKvjI2HjYP21z/EyZ+PFPzur/lNaZhIUlMnUfibbwE9pFggQzzf8scM7c7Sf+
mLoVSdoQ/Rujz7CqvQzi2nKSsM7t0curUIb3lJWee5/UeEaxZcmIufoNUrzohAWH
BJOIPDM4ssUTLRq7wYM9uQKBgHCBau5OP8gE6mjKuXsZXWUoahpFLKwwwmJUp2vQ
pOFPJ/6WZOlqkTVT6QPAcPUbTohKrF80hsZqZyDdSfT3peFx4ZLocBrS56m6NmHR
UYHMvJ8rQm76T1fryHVidz85g3zRmfBeWg8yqT5oFg4LYgfLsPm1gRjOhs8LfPvI
OLlRAoGBAIZ5Uv4Z3s8O7WKXXUe/lq6j7vfiVkR1NW/Z/WLKXZpnmvJ7FgxN4e56
RXT7GwNQHIY8eDjDnsHxzrxd+raOxOZeKcMHj3XyjCX3NHfTscnsBPAGYpY/Wxzh
T8UYnFu6RzkixElTf2rseEav7rkdKkI3LAeIZy7B0HulKKsmqVQ7
-----END RSA PRIVATE KEY-----
";

    /// Cases from Terraform `internal/lang/funcs/crypto_test.go` (`TestRsaDecrypt`).
    #[test]
    fn rsadecrypt_reads_pem_keys() {
        let mut scope = TestScope::new(Path::new("."), Vec::new());
        scope.vars.insert("cipher".into(), s(CIPHER));
        scope.vars.insert("key".into(), s(KEY));
        // The same key with its last lines cut off.
        let truncated: String = KEY.lines().take(10).collect::<Vec<_>>().join("\n")
            + "\n-----END RSA PRIVATE KEY-----\n";
        scope.vars.insert("bad_key".into(), s(&truncated));
        check_in(
            &scope,
            &[
                ("rsadecrypt(var.cipher, var.key)", Ok(s("message"))),
                ("rsadecrypt(\"bad\", var.key)", Err("failed to decode input \"bad\": cipher text must be base64-encoded")),
                ("rsadecrypt(\"\", var.key)", Err("failed to decrypt")),
                ("rsadecrypt(var.cipher, \"\")", Err("invalid private key: no key found")),
                ("rsadecrypt(var.cipher, var.bad_key)", Err("invalid ASN1 data in the given private key")),
                (
                    "rsadecrypt(var.cipher, \"-----BEGIN OPENSSH PRIVATE KEY-----\\nx\\n-----END OPENSSH PRIVATE KEY-----\")",
                    Err("not OpenSSH's format"),
                ),
            ],
        );
    }
}
