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
    pub fn new(shot: &Screenshot, policy: &ImagePolicy) -> ModelImage {
        let (mw, mh) = smart_resize(shot.width, shot.height, policy);
        let hash = guigym_core::sha256_hex(&shot.png);
        let png = match policy.resize_at {
            ResizeAt::Client if (mw, mh) != (shot.width, shot.height) => resize_png(&shot.png, mw, mh).unwrap_or_else(|| shot.png.clone()),
            _ => shot.png.clone(),
        };
        let f = policy.factor.max(1);
        ModelImage { hash, png: Arc::new(png), width: shot.width, height: shot.height, model_width: mw, model_height: mh, tokens: (mw / f) * (mh / f) }
    }
}

/// Resizes a PNG with bilinear filtering; `None` when the bytes are not a PNG.
pub fn resize_png(png: &[u8], width: u32, height: u32) -> Option<Vec<u8>> {
    let src = tiny_skia::Pixmap::decode_png(png).ok()?;
    let mut dst = tiny_skia::Pixmap::new(width, height)?;
    let sx = width as f32 / src.width() as f32;
    let sy = height as f32 / src.height() as f32;
    let paint = tiny_skia::PixmapPaint { quality: tiny_skia::FilterQuality::Bilinear, ..Default::default() };
    dst.draw_pixmap(0, 0, src.as_ref(), &paint, tiny_skia::Transform::from_scale(sx, sy), None);
    dst.encode_png().ok()
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
        let shot = Screenshot { width: 1080, height: 2400, png: pixmap.encode_png().unwrap() };
        let p = ImagePolicy { resize_at: ResizeAt::Client, ..ImagePolicy::default() };
        let img = ModelImage::new(&shot, &p);
        let back = tiny_skia::Pixmap::decode_png(&img.png).unwrap();
        assert_eq!((back.width(), back.height()), (672, 1484));
        assert_eq!(img.tokens, 24 * 53);
    }
}
