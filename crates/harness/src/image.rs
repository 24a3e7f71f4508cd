//! Images as a model sees them: the size after resizing under a pixel budget (Qwen-VL's
//! `smart_resize`), the tokens that costs, the scale back to screenshot pixels, and, when the
//! harness resizes itself, the smaller PNG.

use std::sync::Arc;

use guigym_core::Screenshot;

use crate::config::{ImagePolicy, ResizeAt};

/// One image of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelImage {
    /// SHA-256 of the screenshot PNG: identity for prefix caching and blob storage.
    pub hash: String,
    /// The PNG sent to the model (the original, or resized here).
    pub png: Arc<Vec<u8>>,
    /// The screenshot's size.
    pub width: u32,
    pub height: u32,
    /// The size the model sees.
    pub model_width: u32,
    pub model_height: u32,
    /// Image tokens: one per `factor`×`factor` patch of the model's image.
    pub tokens: u32,
}

/// Qwen-VL's rule: sides rounded to multiples of `factor`, area kept within
/// [`min_pixels`, `max_pixels`], aspect ratio kept as far as rounding allows.
pub fn smart_resize(width: u32, height: u32, p: &ImagePolicy) -> (u32, u32) {
    let f = p.factor.max(1) as f64;
    let (w, h) = (width.max(1) as f64, height.max(1) as f64);
    let mut wb = ((w / f).round() * f).max(f);
    let mut hb = ((h / f).round() * f).max(f);
    if wb * hb > p.max_pixels as f64 {
        let beta = (w * h / p.max_pixels as f64).sqrt();
        wb = ((w / beta / f).floor() * f).max(f);
        hb = ((h / beta / f).floor() * f).max(f);
    } else if wb * hb < p.min_pixels as f64 {
        let beta = (p.min_pixels as f64 / (w * h)).sqrt();
        wb = (w * beta / f).ceil() * f;
        hb = (h * beta / f).ceil() * f;
    }
    (wb as u32, hb as u32)
}

impl ModelImage {
    /// Prepares a screenshot for the model, once per observation: with client-side resizing,
    /// resampled from its pixels (decoded first only when it came as a PNG) and encoded at the
    /// model's size; its hash is the screenshot's own, shared with the stored step.
    pub fn new(shot: &Screenshot, policy: &ImagePolicy) -> ModelImage {
        let (mw, mh) = smart_resize(shot.width, shot.height, policy);
        let png = match policy.resize_at {
            ResizeAt::Client if (mw, mh) != (shot.width, shot.height) => resize(shot, mw, mh),
            _ => None,
        };
        let png = png.unwrap_or_else(|| shot.png().to_vec());
        let f = policy.factor.max(1);
        let hash = shot.sha256().to_string();
        ModelImage { hash, png: Arc::new(png), width: shot.width, height: shot.height, model_width: mw, model_height: mh, tokens: (mw / f) * (mh / f) }
    }
}

/// The screenshot resampled to `width`×`height` as a PNG; `None` when its bytes are not a PNG.
fn resize(shot: &Screenshot, width: u32, height: u32) -> Option<Vec<u8>> {
    // A stated size far off any screen (a hostile client's) can round to a huge model size.
    if width as u64 * height as u64 > guigym_core::screenshot::MAX_PIXELS {
        return None;
    }
    let (w, h, rgba) = shot.to_rgba().ok()?;
    let pixels = resample_rgba(&rgba, (w, h), (width, height))?;
    Some(guigym_core::screenshot::encode_png(width, height, &pixels))
}

/// Resamples opaque RGBA with a Catmull-Rom convolution (SIMD where the CPU has it): the filter
/// Pillow's BICUBIC is, which Qwen-VL's processor resizes with, so an image resized here is the
/// one a server-side resize would give. (A bilinear convolution measured no faster here.)
pub fn resample_rgba(rgba: &[u8], from: (u32, u32), to: (u32, u32)) -> Option<Vec<u8>> {
    use fast_image_resize as fr;
    thread_local! {
        // The resizer keeps its buffers between calls.
        static RESIZER: std::cell::RefCell<fr::Resizer> = std::cell::RefCell::new(fr::Resizer::new());
    }
    let src = fr::images::ImageRef::new(from.0, from.1, rgba, fr::PixelType::U8x4).ok()?;
    let mut dst = fr::images::Image::new(to.0, to.1, fr::PixelType::U8x4);
    // Screens are opaque: no premultiplying by alpha.
    let options = fr::ResizeOptions::new().resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::CatmullRom)).use_alpha(false);
    RESIZER.with(|r| r.borrow_mut().resize(&src, &mut dst, &options)).ok()?;
    Some(dst.into_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phone_screens_fit_the_default_budget() {
        let p = ImagePolicy::default();
        let (w, h) = smart_resize(1080, 2400, &p);
        assert_eq!((w, h), (672, 1484));
        assert!(w * h <= p.max_pixels);
        assert_eq!((w % 28, h % 28), (0, 0));
        // Small images are scaled up to the minimum, sides stay multiples of 28.
        let (w, h) = smart_resize(30, 30, &p);
        assert!(w * h >= p.min_pixels && w % 28 == 0 && h % 28 == 0);
        // Already within budget: rounded only.
        assert_eq!(smart_resize(560, 840, &p), (560, 840));
    }

    #[test]
    fn client_side_resize_makes_the_png_small() {
        let mut pixmap = tiny_skia::Pixmap::new(1080, 2400).unwrap();
        pixmap.fill(tiny_skia::Color::from_rgba8(10, 20, 30, 255));
        let shot = Screenshot::from_rgba(1080, 2400, pixmap.take()).unwrap();
        let p = ImagePolicy { resize_at: ResizeAt::Client, ..ImagePolicy::default() };
        let img = ModelImage::new(&shot, &p);
        let (w, h, rgba) = guigym_core::screenshot::decode_png(&img.png).unwrap();
        assert_eq!((w, h), (672, 1484));
        assert!(rgba.chunks(4).all(|p| p == [10, 20, 30, 255]));
        assert_eq!(img.tokens, 24 * 53);
        assert_eq!(img.hash, shot.sha256());
    }

    #[test]
    fn pixels_and_their_png_give_the_same_model_image() {
        // Stripes and a gradient: resampling has something to blend.
        let (w, h) = (300u32, 700u32);
        let rgba: Vec<u8> = (0..w * h).flat_map(|i| [((i % w) * 255 / w) as u8, if (i / w) % 9 < 4 { 0 } else { 250 }, (i % 7 * 30) as u8, 255]).collect();
        let painted = Screenshot::from_rgba(w, h, rgba.clone()).unwrap();
        let sent = Screenshot::from_png(w, h, painted.png().to_vec());
        let p = ImagePolicy { max_pixels: 100 * 28 * 28, ..ImagePolicy::default() };
        let (a, b) = (ModelImage::new(&painted, &p), ModelImage::new(&sent, &p));
        assert_eq!((a.model_width, a.model_height), smart_resize(w, h, &p));
        assert_ne!((a.model_width, a.model_height), (w, h));
        assert_eq!(a, b);
        // The decoder reads back exactly the painted pixels.
        assert_eq!(guigym_core::screenshot::decode_png(sent.png()).unwrap(), (w, h, rgba));
        // Bytes that are no PNG are sent as they are rather than lost.
        let junk = Screenshot::from_png(w, h, b"not a png".to_vec());
        assert_eq!(ModelImage::new(&junk, &p).png.as_slice(), b"not a png");
    }
}
