//! ADB's authentication: the device sends a random 20-byte token, the host signs it with its
//! RSA key (PKCS#1 v1.5, the token standing where a SHA-1 digest would), and the device checks
//! the signature against the public keys it trusts. Keys travel in Android's own format
//! (`adbkey.pub`): base64 of the modulus as 32-bit little-endian words with the Montgomery
//! figures `n0inv` and `rr` beside it, then the exponent, then ` user@host`.

use rsa::traits::PublicKeyParts;
use rsa::{BigUint, Pkcs1v15Sign, RsaPrivateKey, RsaPublicKey};

/// Words of a 2048-bit modulus: the only size adb uses.
const WORDS: usize = 64;

/// The public keys a device lets in.
#[derive(Debug, Clone, Default)]
pub struct AuthKeys(Vec<RsaPublicKey>);

impl AuthKeys {
    /// Keys in `adbkey.pub` form, one per line (blank lines and `#` comments skipped). A
    /// line that is not a key is an error naming its number.
    pub fn parse(text: &str) -> Result<AuthKeys, String> {
        let mut keys = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let encoded = line.split_whitespace().next().unwrap_or("");
            keys.push(decode_public_key(encoded).map_err(|e| format!("line {}: {e}", i + 1))?);
        }
        if keys.is_empty() {
            return Err("no key in the file".into());
        }
        Ok(AuthKeys(keys))
    }

    /// Whether one of the keys signed `token`.
    pub fn verify(&self, token: &[u8], signature: &[u8]) -> bool {
        self.0.iter().any(|k| k.verify(Pkcs1v15Sign::new::<sha1::Sha1>(), token, signature).is_ok())
    }
}

/// A fresh token for the host to sign.
pub fn token() -> [u8; 20] {
    use rand_core::RngCore;
    let mut t = [0u8; 20];
    rand_core::OsRng.fill_bytes(&mut t);
    t
}

/// Android's public-key blob, base64-decoded: the key it holds.
pub fn decode_public_key(encoded: &str) -> Result<RsaPublicKey, String> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).map_err(|e| format!("not base64: {e}"))?;
    let expected = 4 + 4 + WORDS * 4 + WORDS * 4 + 4;
    if bytes.len() != expected {
        return Err(format!("an adb public key is {expected} bytes; this one is {}", bytes.len()));
    }
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    if word(0) as usize != WORDS {
        return Err(format!("a {}-word modulus; adb keys have {WORDS}", word(0)));
    }
    let modulus = BigUint::from_bytes_le(&bytes[8..8 + WORDS * 4]);
    let exponent = BigUint::from(word(8 + 2 * WORDS * 4));
    RsaPublicKey::new(modulus, exponent).map_err(|e| format!("not a usable RSA key: {e}"))
}

/// A public key in Android's blob form, base64-encoded (what `adbkey.pub` holds before the
/// user name).
pub fn encode_public_key(key: &RsaPublicKey) -> Result<String, String> {
    use base64::Engine;
    let n = key.n();
    let mut modulus = n.to_bytes_le();
    if modulus.len() > WORDS * 4 {
        return Err("adb keys are 2048 bits".into());
    }
    modulus.resize(WORDS * 4, 0);
    // n0inv = -1/n mod 2^32; rr = (2^2048)^2 mod n.
    let n0inv = mod_inverse_u32(low_u32(n)).wrapping_neg();
    let rr = (BigUint::from(1u8) << (WORDS * 32 * 2)) % n;
    let mut rr_bytes = rr.to_bytes_le();
    rr_bytes.resize(WORDS * 4, 0);
    let exponent = low_u32(key.e());
    let mut blob = Vec::with_capacity(4 + 4 + 2 * WORDS * 4 + 4);
    blob.extend_from_slice(&(WORDS as u32).to_le_bytes());
    blob.extend_from_slice(&n0inv.to_le_bytes());
    blob.extend_from_slice(&modulus);
    blob.extend_from_slice(&rr_bytes);
    blob.extend_from_slice(&exponent.to_le_bytes());
    Ok(base64::engine::general_purpose::STANDARD.encode(blob))
}

/// A number's lowest 32 bits.
fn low_u32(n: &BigUint) -> u32 {
    let mut bytes = n.to_bytes_le();
    bytes.resize(4, 0);
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// The inverse of an odd number modulo 2^32 (Newton's iteration).
fn mod_inverse_u32(a: u32) -> u32 {
    let mut x = a; // correct to 3 bits for odd a
    for _ in 0..5 {
        x = x.wrapping_mul(2u32.wrapping_sub(a.wrapping_mul(x)));
    }
    x
}

/// A new 2048-bit key, as an adb host makes one on first use.
pub fn generate_key() -> Result<RsaPrivateKey, String> {
    RsaPrivateKey::new(&mut rand_core::OsRng, WORDS * 32).map_err(|e| e.to_string())
}

/// Signs a token as an adb host does.
pub fn sign(key: &RsaPrivateKey, token: &[u8]) -> Result<Vec<u8>, String> {
    key.sign(Pkcs1v15Sign::new::<sha1::Sha1>(), token).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_survives_androids_format_and_only_its_signatures_verify() {
        let key = generate_key().unwrap();
        let public = RsaPublicKey::from(&key);
        let line = format!("{} someone@somewhere\n", encode_public_key(&public).unwrap());
        let keys = AuthKeys::parse(&line).unwrap();
        assert_eq!(keys.0[0], public);
        let t = token();
        assert_ne!(t, token(), "tokens are fresh");
        let signature = sign(&key, &t).unwrap();
        assert!(keys.verify(&t, &signature));
        assert!(!keys.verify(&token(), &signature), "a signature of another token");
        let other = generate_key().unwrap();
        assert!(!keys.verify(&t, &sign(&other, &t).unwrap()), "another key's signature");
        assert!(AuthKeys::parse("# nothing\n").is_err());
        assert!(AuthKeys::parse("QUJD user@host").unwrap_err().contains("line 1"));
    }

    #[test]
    fn inverses_modulo_two_to_the_32() {
        for a in [1u32, 3, 0xffff_ffff, 0x1234_5679] {
            assert_eq!(a.wrapping_mul(mod_inverse_u32(a)), 1, "{a}");
        }
    }
}
