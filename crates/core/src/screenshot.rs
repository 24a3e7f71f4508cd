//! A screenshot: PNG bytes from a device, or opaque pixels painted in this process. Pixels are
//! encoded only when their bytes are asked for (stored, sent, served), once: clones share the
//! encoding and the hash, so the harness resizing from pixels and the store keeping the PNG
//! never repeat each other's work.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone)]
pub struct Screenshot {
    pub width: u32,
    pub height: u32,
    inner: Arc<Inner>,
}

struct Inner {
    /// RGBA, row by row, every pixel opaque; `None` when the screenshot came as a PNG.
    rgba: Option<Vec<u8>>,
    png: OnceLock<Vec<u8>>,
    sha256: OnceLock<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("{got} bytes of pixels for a {width}×{height} screenshot (RGBA needs {want})")]
pub struct PixelsError {
    pub width: u32,
    pub height: u32,
    pub got: usize,
    pub want: usize,
}

impl Screenshot {
    /// A screenshot as a device sent it.
    pub fn from_png(width: u32, height: u32, png: Vec<u8>) -> Screenshot {
        let inner = Inner { rgba: None, png: OnceLock::from(png), sha256: OnceLock::new() };
        Screenshot { width, height, inner: Arc::new(inner) }
    }

    /// Opaque RGBA pixels (alpha is dropped when encoded).
    pub fn from_rgba(width: u32, height: u32, rgba: Vec<u8>) -> Result<Screenshot, PixelsError> {
        let want = width as usize * height as usize * 4;
        if rgba.len() != want || width == 0 || height == 0 {
            return Err(PixelsError { width, height, got: rgba.len(), want });
        }
        let inner = Inner { rgba: Some(rgba), png: OnceLock::new(), sha256: OnceLock::new() };
        Ok(Screenshot { width, height, inner: Arc::new(inner) })
    }

    /// The pixels, when the screenshot was painted in this process.
    pub fn rgba(&self) -> Option<&[u8]> {
        self.inner.rgba.as_deref()
    }

    /// The pixels as RGBA: the painted ones, or the PNG's decoded (the size the PNG states).
    pub fn to_rgba(&self) -> Result<(u32, u32, std::borrow::Cow<'_, [u8]>), String> {
        match self.rgba() {
            Some(rgba) => Ok((self.width, self.height, rgba.into())),
            None => decode_png(self.png()).map(|(w, h, rgba)| (w, h, rgba.into())),
        }
    }

    /// The PNG bytes (encoded here on first use when the screenshot is pixels).
    pub fn png(&self) -> &[u8] {
        self.inner.png.get_or_init(|| match &self.inner.rgba {
            Some(rgba) => encode_png(self.width, self.height, rgba),
            None => Vec::new(),
        })
    }

    /// The same screenshot without its pixels: only the PNG (and the hash, when made) kept. A
    /// painted phone screen is 10 MB of pixels against a few hundred KiB of PNG; a rollout keeps
    /// this while the model answers.
    pub fn into_png(self) -> Screenshot {
        if self.inner.rgba.is_none() {
            return self;
        }
        let png = self.png().to_vec();
        let inner = Inner { rgba: None, png: OnceLock::from(png), sha256: self.inner.sha256.clone() };
        Screenshot { width: self.width, height: self.height, inner: Arc::new(inner) }
    }

    /// SHA-256 of the PNG, in hex: the screenshot's name in stores and prompts.
    pub fn sha256(&self) -> &str {
        self.inner.sha256.get_or_init(|| crate::sha256_hex(self.png()))
    }
}

/// Encodes opaque RGBA as an RGB PNG (dropping the alpha channel, always opaque, saves a
/// quarter of the raw bytes).
pub fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut rgb = vec![0u8; rgba.len() / 4 * 3];
    for (to, from) in rgb.chunks_exact_mut(3).zip(rgba.chunks_exact(4)) {
        to.copy_from_slice(&from[..3]);
    }
    // Sizes agree (`from_rgba` checked them), so writing to memory cannot fail.
    encode_rgb_png(width, height, &rgb).unwrap_or_default()
}

/// Encodes RGB rows as a PNG with fdeflate's fast compression: screens are flat colour and text,
/// which compress well without the slow levels; `Sub` filtering suits rows of repeated colours.
pub fn encode_rgb_png(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::with_capacity(rgb.len() / 8);
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    encoder.set_filter(png::FilterType::Sub);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(out)
}

/// The largest picture decoded: 16,384 pixels a side and 64 megapixels (256 MiB of RGBA), so a
/// small PNG that states a huge size cannot make us allocate it.
pub const MAX_SIDE: u32 = 16_384;
pub const MAX_PIXELS: u64 = 64 << 20;

/// A PNG's pixels as RGBA (grey and RGB expanded, 16 bits cut to 8): width, height, pixels.
/// Pictures past `MAX_SIDE` or `MAX_PIXELS` are refused before anything is allocated.
pub fn decode_png(png: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let header = decoder.read_header_info().map_err(|e| e.to_string())?;
    let (w, h) = (header.width, header.height);
    if w > MAX_SIDE || h > MAX_SIDE || w as u64 * h as u64 > MAX_PIXELS {
        return Err(format!("a {w}×{h} PNG is larger than the {MAX_SIDE}-pixel sides or {MAX_PIXELS} pixels decoded here"));
    }
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).map_err(|e| e.to_string())?;
    pixels.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => pixels,
        png::ColorType::Rgb => pixels.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => pixels.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Grayscale => pixels.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err("an indexed PNG after expansion".into()),
    };
    Ok((info.width, info.height, rgba))
}

impl std::fmt::Debug for Screenshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.inner.rgba.is_some() { "pixels" } else { "png" };
        f.debug_struct("Screenshot").field("width", &self.width).field("height", &self.height).field("from", &kind).finish()
    }
}

/// Equal when both are pixels and the pixels are equal, or else when their PNG bytes are (a
/// painted screenshot and the PNG made from it are equal; two encoders' PNGs of one picture are not).
impl PartialEq for Screenshot {
    fn eq(&self, other: &Screenshot) -> bool {
        if (self.width, self.height) != (other.width, other.height) {
            return false;
        }
        match (self.rgba(), other.rgba()) {
            (Some(a), Some(b)) => a == b,
            _ => self.png() == other.png(),
        }
    }
}

/// On the wire a screenshot is its size and its PNG in base64, so JSON stays compact.
#[derive(Serialize, Deserialize)]
struct Wire<'a> {
    width: u32,
    height: u32,
    #[serde(borrow)]
    png: std::borrow::Cow<'a, str>,
}

impl Serialize for Screenshot {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use base64::Engine;
        let png = base64::engine::general_purpose::STANDARD.encode(self.png());
        Wire { width: self.width, height: self.height, png: png.into() }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Screenshot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Screenshot, D::Error> {
        use base64::Engine;
        let wire = Wire::deserialize(d)?;
        let png = base64::engine::general_purpose::STANDARD.decode(wire.png.as_bytes()).map_err(serde::de::Error::custom)?;
        Ok(Screenshot::from_png(wire.width, wire.height, png))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixels(w: u32, h: u32) -> Vec<u8> {
        (0..w * h).flat_map(|i| [(i % 251) as u8, (i / 7 % 256) as u8, 200, 255]).collect()
    }

    #[test]
    fn pixels_encode_once_and_travel_as_png() {
        let shot = Screenshot::from_rgba(30, 20, pixels(30, 20)).unwrap();
        let copy = shot.clone();
        assert!(shot.png().starts_with(b"\x89PNG"));
        // The clone shares the encoding.
        assert!(std::ptr::eq(shot.png().as_ptr(), copy.png().as_ptr()));
        assert_eq!(shot.sha256(), crate::sha256_hex(shot.png()));
        let json = serde_json::to_string(&shot).unwrap();
        let back: Screenshot = serde_json::from_str(&json).unwrap();
        assert!(back.rgba().is_none());
        assert_eq!(back, shot);
        assert_eq!(back.sha256(), shot.sha256());
        // Decoded, the PNG gives the pixels back.
        let (w, h, rgba) = back.to_rgba().unwrap();
        assert_eq!((w, h, rgba.as_ref()), (30, 20, &pixels(30, 20)[..]));
        assert!(decode_png(b"no png").is_err());
        // Without its pixels it is the same screenshot, hash included.
        let png_only = shot.clone().into_png();
        assert!(png_only.rgba().is_none());
        assert_eq!((png_only.png(), png_only.sha256()), (shot.png(), shot.sha256()));
    }

    #[test]
    fn a_png_stating_a_huge_size_is_refused_before_it_is_allocated() {
        // A valid header of 100,000 × 100,000 followed by nothing.
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, 100_000, 100_000);
        encoder.set_color(png::ColorType::Rgb);
        drop(encoder.write_header());
        let e = decode_png(&out).unwrap_err();
        assert!(e.contains("100000×100000"), "{e}");
        let e = Screenshot::from_png(10, 10, out).to_rgba().unwrap_err();
        assert!(e.contains("larger"), "{e}");
    }

    #[test]
    fn pixels_of_the_wrong_length_are_refused() {
        let e = Screenshot::from_rgba(30, 20, vec![0; 30 * 20 * 3]).unwrap_err();
        assert!(e.to_string().contains("2400"), "{e}");
        assert!(Screenshot::from_rgba(0, 0, Vec::new()).is_err());
        let a = Screenshot::from_rgba(2, 1, vec![1, 2, 3, 255, 4, 5, 6, 255]).unwrap();
        let b = Screenshot::from_rgba(2, 1, vec![1, 2, 3, 255, 4, 5, 7, 255]).unwrap();
        assert_ne!(a, b);
        assert_eq!(a, Screenshot::from_png(2, 1, a.png().to_vec()));
    }
}
