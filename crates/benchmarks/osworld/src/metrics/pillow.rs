//! Images as OSWorld's image metrics hold them, through Pillow 11 and NumPy: a PNG or JPEG file
//! decoded to Pillow's mode (1, L, LA, P with its palette, RGB, RGBA) and the operations those
//! metrics call, each with Pillow's own integer arithmetic (conversions, point tables, the
//! bicubic and Lanczos resamplers, bounding boxes), so that a verdict near a threshold falls
//! where OSWorld's does.
//!
//! Formats Pillow reads and this does not (GIF, BMP, TIFF, WebP, Netpbm, PSD, 16-bit grey, CMYK
//! JPEG, …, each known by its first bytes) are `Failure::Unsupported`, never a silent verdict;
//! TGA and MSP, which have no such mark, read as no image. Where Pillow is laxer or stricter than
//! the png crate on a broken file (an IDAT's checksum, a missing IEND), the two may disagree.

use std::path::Path;

/// Pillow refuses images above this many pixels (`DecompressionBombError`).
const MAX_PIXELS: usize = 2 * 89_478_485;

/// Why an image could not be had as OSWorld's metric has it.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// Pillow or NumPy raises here, so OSWorld's metric raises.
    Raises(String),
    /// Pillow would read or convert it; this does not (yet).
    Unsupported(String),
}

fn raises(msg: impl Into<String>) -> Failure {
    Failure::Raises(msg.into())
}

/// Pillow's image modes that OSWorld's metrics meet. `La`/`RGBa` (premultiplied alpha) exist
/// only inside a resize, as in Pillow.
// Pillow's own names of its modes.
#[allow(clippy::upper_case_acronyms)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One bit a pixel, held as 0 or 255 (as Pillow holds it).
    One,
    L,
    LA,
    La,
    /// Palette indices.
    P,
    RGB,
    RGBA,
    RGBa,
    HSV,
}

impl Mode {
    pub fn bands(self) -> usize {
        match self {
            Mode::One | Mode::L | Mode::P => 1,
            Mode::LA | Mode::La => 2,
            Mode::RGB | Mode::HSV => 3,
            Mode::RGBA | Mode::RGBa => 4,
        }
    }

    fn has_alpha(self) -> bool {
        matches!(self, Mode::LA | Mode::La | Mode::RGBA | Mode::RGBa)
    }
}

/// Pillow's `info["transparency"]` from a PNG's tRNS chunk.
#[derive(Debug, Clone, PartialEq)]
pub enum Transparency {
    /// A colour key (one value for grey, three for RGB), as 16-bit numbers.
    Key(Vec<u16>),
    /// A palette whose one entry is fully transparent, all others opaque.
    Index(usize),
    /// One alpha a palette entry (entries past the end are opaque).
    Alphas(Vec<u8>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub mode: Mode,
    pub width: usize,
    pub height: usize,
    /// The bands' values, interleaved, one byte each.
    pub data: Vec<u8>,
    /// For `P`: the palette's colours.
    pub palette: Vec<[u8; 3]>,
    pub transparency: Option<Transparency>,
}

/// A picture's header (see `Image::header`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub size: (usize, usize),
    pub alpha: bool,
    pub transparency: bool,
}

/// Pillow's resampling filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    Bicubic,
    Lanczos,
}

impl Image {
    pub fn new(mode: Mode, width: usize, height: usize, data: Vec<u8>) -> Image {
        debug_assert_eq!(data.len(), width * height * mode.bands());
        Image { mode, width, height, data, palette: Vec::new(), transparency: None }
    }

    /// `Image.open` and `load()`: the file decoded, or why Pillow would raise.
    pub fn open(path: &Path) -> Result<Image, Failure> {
        let bytes = std::fs::read(path).map_err(|e| raises(format!("{}: {e}", path.display())))?;
        Image::decode(&bytes).map_err(|f| match f {
            Failure::Raises(m) => Failure::Raises(format!("{}: {m}", path.display())),
            Failure::Unsupported(m) => Failure::Unsupported(format!("{}: {m}", path.display())),
        })
    }

    pub fn decode(bytes: &[u8]) -> Result<Image, Failure> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            return decode_png(bytes);
        }
        if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            return decode_jpeg(bytes);
        }
        let other = [
            (&b"GIF8"[..], "GIF"),
            (b"BM", "BMP"),
            (b"II*\0", "TIFF"),
            (b"MM\0*", "TIFF"),
            (b"gimp xcf", "XCF"),
            (b"\0\0\x01\0", "ICO"),
            (b"8BPS", "PSD"),
            (b"DDS ", "DDS"),
            (b"qoif", "QOI"),
            (b"icns", "ICNS"),
            (b"\x01\xda", "SGI"),
            (b"#define", "XBM"),
            (b"Image type:", "IM"),
            (b"%!PS", "EPS"),
            (b"\xff\x4f\xff\x51", "JPEG 2000"),
            (b"\0\0\0\x0cjP  ", "JPEG 2000"),
        ];
        // Netpbm (P1–P7) and PCX: a letter and a digit; a byte, a version and an encoding.
        if bytes.len() >= 2 && bytes[0] == b'P' && (b'1'..=b'7').contains(&bytes[1]) {
            return Err(Failure::Unsupported("a Netpbm image (guigym reads PNG and JPEG)".into()));
        }
        if bytes.len() >= 128 && bytes[0] == 0x0a && bytes[1] <= 5 && bytes[2] == 1 {
            return Err(Failure::Unsupported("a PCX image (guigym reads PNG and JPEG)".into()));
        }
        if let Some((_, name)) = other.iter().find(|(magic, _)| bytes.starts_with(magic)) {
            return Err(Failure::Unsupported(format!("a {name} image (guigym reads PNG and JPEG)")));
        }
        if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            return Err(Failure::Unsupported("a WebP image (guigym reads PNG and JPEG)".into()));
        }
        Err(raises("cannot identify image file"))
    }

    /// What `Image.open` knows before the pixels are loaded: the size, whether the picture has
    /// an alpha band, and whether it has a transparent colour (`info["transparency"]`).
    pub fn header(path: &Path) -> Result<Header, Failure> {
        let bytes = std::fs::read(path).map_err(|e| raises(format!("{}: {e}", path.display())))?;
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            let mut decoder = png::Decoder::new(&bytes[..]);
            decoder.set_transformations(png::Transformations::IDENTITY);
            let reader = decoder.read_info().map_err(|e| raises(format!("not a valid PNG: {e}")))?;
            let info = reader.info();
            return Ok(Header {
                size: (info.width as usize, info.height as usize),
                alpha: matches!(info.color_type, png::ColorType::Rgba | png::ColorType::GrayscaleAlpha),
                transparency: info.trns.is_some(),
            });
        }
        if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            let header = turbojpeg::read_header(&bytes).map_err(|e| raises(format!("not a valid JPEG: {e}")))?;
            return Ok(Header { size: (header.width, header.height), alpha: false, transparency: false });
        }
        Image::decode(&bytes).map(|image| Header { size: image.size(), alpha: image.mode.has_alpha(), transparency: image.transparency.is_some() })
    }

    pub fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    fn pixel(&self, x: usize, y: usize) -> &[u8] {
        let b = self.mode.bands();
        let i = (y * self.width + x) * b;
        &self.data[i..i + b]
    }

    fn map_pixels(&self, mode: Mode, f: impl Fn(&[u8], &mut Vec<u8>)) -> Image {
        let mut data = Vec::with_capacity(self.width * self.height * mode.bands());
        for px in self.data.chunks_exact(self.mode.bands()) {
            f(px, &mut data);
        }
        Image::new(mode, self.width, self.height, data)
    }

    fn colour(&self, index: u8) -> [u8; 3] {
        self.palette.get(usize::from(index)).copied().unwrap_or([0, 0, 0])
    }

    fn palette_alpha(&self, index: u8) -> u8 {
        match &self.transparency {
            Some(Transparency::Index(i)) if *i == usize::from(index) => 0,
            Some(Transparency::Alphas(a)) => a.get(usize::from(index)).copied().unwrap_or(255),
            _ => 255,
        }
    }

    /// `Image.convert(mode)` between the modes the metrics meet.
    pub fn convert(&self, mode: Mode) -> Result<Image, Failure> {
        use Mode::*;
        if mode == self.mode {
            return Ok(self.clone());
        }
        if self.mode == Mode::One {
            // Pillow reads any value but 0 in a `1` image as white.
            let grey = Image { mode: Mode::L, data: self.data.iter().map(|v| if *v != 0 { 255 } else { 0 }).collect(), ..self.clone() };
            return grey.convert(mode);
        }
        let key = |px: &[u8]| -> bool {
            matches!(&self.transparency, Some(Transparency::Key(k)) if k.len() == px.len() && k.iter().zip(px).all(|(k, v)| *k == u16::from(*v)))
        };
        let image = match (self.mode, mode) {
            (L, RGB) => self.map_pixels(RGB, |p, o| o.extend([p[0]; 3])),
            (L, LA) => self.map_pixels(LA, |p, o| o.extend([p[0], if key(p) { 0 } else { 255 }])),
            (L, RGBA) => self.map_pixels(RGBA, |p, o| o.extend([p[0], p[0], p[0], if key(p) { 0 } else { 255 }])),
            (LA, L) => self.map_pixels(L, |p, o| o.push(p[0])),
            (LA, RGB) => self.map_pixels(RGB, |p, o| o.extend([p[0]; 3])),
            (LA, RGBA) => self.map_pixels(RGBA, |p, o| o.extend([p[0], p[0], p[0], p[1]])),
            (P, L) => self.map_pixels(L, |p, o| o.push(luma(self.colour(p[0])))),
            (P, LA) => self.map_pixels(LA, |p, o| o.extend([luma(self.colour(p[0])), self.palette_alpha(p[0])])),
            (P, RGB) => self.map_pixels(RGB, |p, o| o.extend(self.colour(p[0]))),
            (P, RGBA) => self.map_pixels(RGBA, |p, o| {
                o.extend(self.colour(p[0]));
                o.push(self.palette_alpha(p[0]));
            }),
            (P | RGBA, HSV) => self.convert(RGB)?.convert(HSV)?,
            (RGB | RGBA, L) => self.map_pixels(L, |p, o| o.push(luma([p[0], p[1], p[2]]))),
            (RGB, LA) => self.map_pixels(LA, |p, o| o.extend([luma([p[0], p[1], p[2]]), 255])),
            (RGBA, LA) => self.map_pixels(LA, |p, o| o.extend([luma([p[0], p[1], p[2]]), p[3]])),
            (RGB, RGBA) => self.map_pixels(RGBA, |p, o| o.extend([p[0], p[1], p[2], if key(p) { 0 } else { 255 }])),
            (RGBA, RGB) => self.map_pixels(RGB, |p, o| o.extend(&p[..3])),
            (RGB, HSV) => self.map_pixels(HSV, |p, o| o.extend(hsv([p[0], p[1], p[2]]))),
            (RGBA, RGBa) => self.map_pixels(RGBa, |p, o| o.extend([mul_div_255(p[0], p[3]), mul_div_255(p[1], p[3]), mul_div_255(p[2], p[3]), p[3]])),
            (LA, La) => self.map_pixels(La, |p, o| o.extend([mul_div_255(p[0], p[1]), p[1]])),
            (RGBa, RGBA) => self.map_pixels(RGBA, |p, o| o.extend([unpremultiply(p[0], p[3]), unpremultiply(p[1], p[3]), unpremultiply(p[2], p[3]), p[3]])),
            (La, LA) => self.map_pixels(LA, |p, o| o.extend([unpremultiply(p[0], p[1]), p[1]])),
            // Grey has no hue and no saturation.
            (L | LA, HSV) => self.map_pixels(HSV, |p, o| o.extend([0, 0, p[0]])),
            (from, to) => return Err(Failure::Unsupported(format!("converting a {from:?} image to {to:?}"))),
        };
        // A colour key becomes the alpha channel it made; otherwise it is kept.
        let transparency = if mode.has_alpha() { None } else { self.transparency.clone().filter(|_| self.mode != P) };
        Ok(Image { transparency, ..image })
    }

    /// `Image.split()[band]`: one band as an `L` image.
    pub fn band(&self, band: usize) -> Image {
        let b = self.mode.bands();
        let data = self.data.iter().skip(band).step_by(b).copied().collect();
        Image::new(Mode::L, self.width, self.height, data)
    }

    /// `Image.point(function)`: the function tabled over 0–255 and applied to every band
    /// (alpha and palette indices too, as Pillow does).
    pub fn point(&self, f: impl Fn(u8) -> u8) -> Image {
        let table: Vec<u8> = (0..=255).map(f).collect();
        Image { data: self.data.iter().map(|v| table[usize::from(*v)]).collect(), ..self.clone() }
    }

    /// `transpose(FLIP_LEFT_RIGHT)`.
    pub fn flip_left_right(&self) -> Image {
        let b = self.mode.bands();
        let mut data = Vec::with_capacity(self.data.len());
        for row in self.data.chunks_exact(self.width * b) {
            for px in row.chunks_exact(b).rev() {
                data.extend_from_slice(px);
            }
        }
        Image { data, ..self.clone() }
    }

    /// `getbbox()`: the box (left, top, right, bottom) of the pixels that are not zero; for an
    /// image with alpha, of those not fully transparent (Pillow 11's `alpha_only`).
    pub fn bbox(&self) -> Option<(usize, usize, usize, usize)> {
        let b = self.mode.bands();
        let lit = |px: &[u8]| if self.mode.has_alpha() { px[b - 1] != 0 } else { px.iter().any(|v| *v != 0) };
        let mut bbox: Option<(usize, usize, usize, usize)> = None;
        for y in 0..self.height {
            for x in 0..self.width {
                if lit(self.pixel(x, y)) {
                    let (l, t, r, bo) = bbox.unwrap_or((x, y, x + 1, y + 1));
                    bbox = Some((l.min(x), t.min(y), r.max(x + 1), bo.max(y + 1)));
                }
            }
        }
        bbox
    }

    /// `crop(box)` of a box inside the image.
    pub fn crop(&self, (left, top, right, bottom): (usize, usize, usize, usize)) -> Image {
        let b = self.mode.bands();
        let mut data = Vec::with_capacity((right - left) * (bottom - top) * b);
        for y in top..bottom {
            let start = (y * self.width + left) * b;
            data.extend_from_slice(&self.data[start..start + (right - left) * b]);
        }
        Image { width: right - left, height: bottom - top, data, ..self.clone() }
    }

    /// `resize(size, filter)`: Pillow's nearest for `1` and `P`, its separable resampler with
    /// premultiplied alpha for the rest.
    pub fn resize(&self, (width, height): (usize, usize), filter: Filter) -> Result<Image, Failure> {
        if (width, height) == self.size() {
            return Ok(self.clone());
        }
        if width == 0 || height == 0 {
            return Err(raises("height and width must be > 0"));
        }
        match self.mode {
            Mode::One | Mode::P => Ok(self.resize_nearest(width, height)),
            Mode::RGBA => self.convert(Mode::RGBa)?.resample(width, height, filter).convert(Mode::RGBA),
            Mode::LA => self.convert(Mode::La)?.resample(width, height, filter).convert(Mode::LA),
            _ => Ok(self.resample(width, height, filter)),
        }
    }

    /// Pillow's nearest scaling (`ImagingScaleAffine`): the source position summed step by
    /// step from half a step, so that it lands where Pillow's own running sum does.
    fn resize_nearest(&self, width: usize, height: usize) -> Image {
        let b = self.mode.bands();
        let positions = |out: usize, len: usize| -> Vec<usize> {
            let step = len as f64 / out as f64;
            let mut at = step * 0.5;
            (0..out)
                .map(|_| {
                    let i = (at as usize).min(len - 1);
                    at += step;
                    i
                })
                .collect()
        };
        let (xs, ys) = (positions(width, self.width), positions(height, self.height));
        let mut data = Vec::with_capacity(width * height * b);
        for y in &ys {
            for x in &xs {
                data.extend_from_slice(self.pixel(*x, *y));
            }
        }
        Image { width, height, data, ..self.clone() }
    }

    fn resample(&self, width: usize, height: usize, filter: Filter) -> Image {
        let b = self.mode.bands();
        let mut image = self.clone();
        if width != self.width {
            let coeffs = Coefficients::new(self.width, width, filter);
            let mut data = Vec::with_capacity(width * image.height * b);
            for row in image.data.chunks_exact(image.width * b) {
                for x in 0..width {
                    for band in 0..b {
                        data.push(coeffs.apply(x, |i| row[i * b + band]));
                    }
                }
            }
            image = Image { width, data, ..image };
        }
        if height != self.height {
            let coeffs = Coefficients::new(self.height, height, filter);
            let stride = image.width * b;
            let mut data = Vec::with_capacity(stride * height);
            for y in 0..height {
                for i in 0..stride {
                    data.push(coeffs.apply(y, |row| image.data[row * stride + i]));
                }
            }
            image = Image { height, data, ..image };
        }
        image
    }

    /// `np.array(image)`'s values in order (a `1` image's are booleans: 0 or 1), and the
    /// array's shape: two dimensions for one band, three for more.
    pub fn array(&self) -> (Vec<usize>, Vec<u8>) {
        let values = if self.mode == Mode::One { self.data.iter().map(|v| u8::from(*v != 0)).collect() } else { self.data.clone() };
        let shape = if self.mode.bands() == 1 { vec![self.height, self.width] } else { vec![self.height, self.width, self.mode.bands()] };
        (shape, values)
    }
}

/// Pillow's ITU-R 601-2 luma in 16-bit fixed point.
fn luma([r, g, b]: [u8; 3]) -> u8 {
    ((u32::from(r) * 19595 + u32::from(g) * 38470 + u32::from(b) * 7471 + 0x8000) >> 16) as u8
}

/// Pillow's `rgb2hsv`, in its own float and double arithmetic.
fn hsv([r, g, b]: [u8; 3]) -> [u8; 3] {
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    if max == min {
        return [0, 0, max];
    }
    let cr = f32::from(max - min);
    let s = cr / f32::from(max);
    let rc = f32::from(max - r) / cr;
    let gc = f32::from(max - g) / cr;
    let bc = f32::from(max - b) / cr;
    // `bc - gc` is float arithmetic in C; with the double literals 2.0 and 4.0 it is double,
    // rounded once into the float.
    let h: f32 = if r == max {
        bc - gc
    } else if g == max {
        (2.0 + f64::from(rc) - f64::from(bc)) as f32
    } else {
        (4.0 + f64::from(gc) - f64::from(rc)) as f32
    };
    let h = ((f64::from(h) / 6.0 + 1.0) % 1.0) as f32;
    let clip = |v: f64| (v as i32).clamp(0, 255) as u8;
    [clip(f64::from(h) * 255.0), clip(f64::from(s) * 255.0), max]
}

fn mul_div_255(a: u8, b: u8) -> u8 {
    let t = u32::from(a) * u32::from(b) + 128;
    (((t >> 8) + t) >> 8) as u8
}

fn unpremultiply(v: u8, alpha: u8) -> u8 {
    if alpha == 0 || alpha == 255 {
        return v;
    }
    ((255 * u32::from(v)) / u32::from(alpha)).min(255) as u8
}

/// Pillow's resampling coefficients along one axis, in its 22-bit fixed point.
struct Coefficients {
    /// Per output position: the first source position and the weights from there.
    taps: Vec<(usize, Vec<i32>)>,
}

const PRECISION_BITS: u32 = 32 - 8 - 2;

impl Coefficients {
    fn new(in_size: usize, out_size: usize, filter: Filter) -> Coefficients {
        let (support, kernel): (f64, fn(f64) -> f64) = match filter {
            Filter::Bicubic => (2.0, bicubic),
            Filter::Lanczos => (3.0, lanczos),
        };
        let scale = in_size as f64 / out_size as f64;
        let filterscale = scale.max(1.0);
        let support = support * filterscale;
        let taps = (0..out_size)
            .map(|xx| {
                let center = (xx as f64 + 0.5) * scale;
                let ss = 1.0 / filterscale;
                let xmin = ((center - support + 0.5) as i64).max(0) as usize;
                let xmax = ((center + support + 0.5) as i64).min(in_size as i64) as usize;
                let weights: Vec<f64> = (xmin..xmax).map(|x| kernel((x as f64 - center + 0.5) * ss)).collect();
                let total: f64 = weights.iter().sum();
                let fixed = weights
                    .iter()
                    .map(|w| {
                        let w = if total != 0.0 { w / total } else { *w };
                        let scaled = w * f64::from(1u32 << PRECISION_BITS);
                        (if w < 0.0 { -0.5 + scaled } else { 0.5 + scaled }) as i32
                    })
                    .collect();
                (xmin, fixed)
            })
            .collect();
        Coefficients { taps }
    }

    fn apply(&self, out: usize, source: impl Fn(usize) -> u8) -> u8 {
        let (first, weights) = &self.taps[out];
        let mut sum: i64 = 1 << (PRECISION_BITS - 1);
        for (i, w) in weights.iter().enumerate() {
            sum += i64::from(source(first + i)) * i64::from(*w);
        }
        (sum >> PRECISION_BITS).clamp(0, 255) as u8
    }
}

fn bicubic(x: f64) -> f64 {
    const A: f64 = -0.5;
    let x = x.abs();
    if x < 1.0 {
        ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0
    } else if x < 2.0 {
        (((x - 5.0) * x + 8.0) * x - 4.0) * A
    } else {
        0.0
    }
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        return 1.0;
    }
    let x = x * std::f64::consts::PI;
    x.sin() / x
}

fn lanczos(x: f64) -> f64 {
    if (-3.0..3.0).contains(&x) {
        sinc(x) * sinc(x / 3.0)
    } else {
        0.0
    }
}

fn decode_png(bytes: &[u8]) -> Result<Image, Failure> {
    let bad = |e: png::DecodingError| raises(format!("not a valid PNG: {e}"));
    let mut decoder = png::Decoder::new(bytes);
    decoder.set_transformations(png::Transformations::IDENTITY);
    let header = decoder.read_header_info().map_err(bad)?;
    let (width, height) = (header.width as usize, header.height as usize);
    if width.saturating_mul(height) > MAX_PIXELS {
        return Err(raises(format!("image size ({width}x{height} pixels) exceeds the limit of {MAX_PIXELS} pixels")));
    }
    let mut reader = decoder.read_info().map_err(bad)?;
    let mut raw = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut raw).map_err(bad)?;
    let info = reader.info();
    let depth = info.bit_depth as usize;
    let line = frame.line_size;
    let trns = info.trns.as_deref().map(<[u8]>::to_vec);
    let palette: Vec<[u8; 3]> = info.palette.as_deref().map(|p| p.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()).unwrap_or_default();
    let rows = || raw.chunks_exact(line).take(height);
    // A sample of a row: below 8 bits unpacked from the high bits first; 16 bits, its high
    // byte (Pillow's `;16B` raw modes keep that).
    let sample = |row: &[u8], i: usize| -> u8 {
        match depth {
            16 => row[i * 2],
            8 => row[i],
            d => {
                let bit = i * d;
                (row[bit / 8] >> (8 - d - bit % 8)) & ((1u8 << d) - 1)
            }
        }
    };
    // The png crate keeps a colour key as one byte a sample below 16 bits, two at 16.
    let key = |t: &[u8], n: usize| -> Vec<u16> {
        if depth == 16 {
            t.chunks_exact(2).take(n).map(|c| u16::from_be_bytes([c[0], c[1]])).collect()
        } else {
            t.iter().take(n).map(|v| u16::from(*v)).collect()
        }
    };
    let (mode, channels) = match info.color_type {
        png::ColorType::Grayscale if depth == 16 => return Err(Failure::Unsupported("a 16-bit grey PNG (Pillow's I;16)".into())),
        png::ColorType::Grayscale if depth == 1 => (Mode::One, 1),
        png::ColorType::Grayscale => (Mode::L, 1),
        png::ColorType::GrayscaleAlpha => (Mode::LA, 2),
        png::ColorType::Rgb => (Mode::RGB, 3),
        png::ColorType::Rgba => (Mode::RGBA, 4),
        png::ColorType::Indexed => (Mode::P, 1),
    };
    let mut data = Vec::with_capacity(width * height * channels);
    for row in rows() {
        for i in 0..width * channels {
            let v = sample(row, i);
            data.push(match (mode, depth) {
                (Mode::One, _) => v * 255,
                (Mode::L, 2) => v * 85,
                (Mode::L, 4) => v * 17,
                _ => v,
            });
        }
    }
    let transparency = trns.map(|t| match mode {
        Mode::P => match t.iter().filter(|a| **a != 255).count() {
            1 if t.contains(&0) => Transparency::Index(t.iter().position(|a| *a == 0).unwrap_or(0)),
            _ => Transparency::Alphas(t),
        },
        Mode::RGB => Transparency::Key(key(&t, 3)),
        _ => Transparency::Key(key(&t, 1)),
    });
    Ok(Image { mode, width, height, data, palette, transparency })
}

/// A JPEG through libjpeg-turbo (as Pillow's wheels decode it: the accurate integer IDCT,
/// smooth upsampling), so that its pixels are Pillow's to the bit.
fn decode_jpeg(bytes: &[u8]) -> Result<Image, Failure> {
    let bad = |e: turbojpeg::Error| raises(format!("not a valid JPEG: {e}"));
    let mut decoder = turbojpeg::Decompressor::new().map_err(bad)?;
    let header = decoder.read_header(bytes).map_err(bad)?;
    let (width, height) = (header.width, header.height);
    if width.saturating_mul(height) > MAX_PIXELS {
        return Err(raises(format!("image size ({width}x{height} pixels) exceeds the limit of {MAX_PIXELS} pixels")));
    }
    let (mode, format) = match header.colorspace {
        turbojpeg::Colorspace::Gray => (Mode::L, turbojpeg::PixelFormat::GRAY),
        turbojpeg::Colorspace::YCbCr | turbojpeg::Colorspace::RGB => (Mode::RGB, turbojpeg::PixelFormat::RGB),
        other => return Err(Failure::Unsupported(format!("a JPEG in colour space {other:?} (Pillow's CMYK)"))),
    };
    let mut data = vec![0; width * height * mode.bands()];
    let output = turbojpeg::Image { pixels: &mut data[..], width, pitch: width * mode.bands(), height, format };
    match decoder.decompress(bytes, output) {
        Ok(()) => {}
        // libjpeg's warnings about corrupt data leave a whole picture, which Pillow takes;
        // a file cut short (or anything fatal) makes Pillow raise.
        Err(turbojpeg::Error::TurboJpegError(warning)) if warning.starts_with("Corrupt JPEG data") => {}
        Err(e) => return Err(bad(e)),
    }
    Ok(Image::new(mode, width, height, data))
}

/// NumPy's pairwise sum of float32 values (`np.sum`/`np.mean` on a contiguous float32 array),
/// in its exact order: OSWorld compares such sums with thresholds.
pub fn pairwise_sum_f32(values: &[f32]) -> f32 {
    let n = values.len();
    if n < 8 {
        let mut sum = 0.0f32;
        for v in values {
            sum += v;
        }
        sum
    } else if n <= 128 {
        let mut r = [0.0f32; 8];
        r.copy_from_slice(&values[..8]);
        let whole = n - n % 8;
        for chunk in values[8..whole].chunks_exact(8) {
            for (acc, v) in r.iter_mut().zip(chunk) {
                *acc += v;
            }
        }
        let mut sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &values[whole..] {
            sum += v;
        }
        sum
    } else {
        let mut half = n / 2;
        half -= half % 8;
        pairwise_sum_f32(&values[..half]) + pairwise_sum_f32(&values[half..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(color: png::ColorType, depth: png::BitDepth, w: u32, h: u32, data: &[u8], extra: impl FnOnce(&mut png::Encoder<&mut Vec<u8>>)) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(color);
        encoder.set_depth(depth);
        extra(&mut encoder);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(data).unwrap();
        drop(writer);
        out
    }

    #[test]
    fn pngs_open_in_pillows_modes() {
        let rgb = Image::decode(&png(png::ColorType::Rgb, png::BitDepth::Eight, 2, 1, &[1, 2, 3, 4, 5, 6], |_| {})).unwrap();
        assert_eq!((rgb.mode, rgb.data.clone(), rgb.transparency.clone()), (Mode::RGB, vec![1, 2, 3, 4, 5, 6], None));
        // 16 bits keep their high byte; a 4-bit grey is scaled by 17, a 1-bit one is mode 1.
        let deep = Image::decode(&png(png::ColorType::Rgb, png::BitDepth::Sixteen, 1, 1, &[1, 2, 3, 4, 5, 6], |_| {})).unwrap();
        assert_eq!(deep.data, vec![1, 3, 5]);
        let grey4 = Image::decode(&png(png::ColorType::Grayscale, png::BitDepth::Four, 3, 1, &[0xf1, 0x20], |_| {})).unwrap();
        assert_eq!((grey4.mode, grey4.data), (Mode::L, vec![255, 17, 34]));
        let one = Image::decode(&png(png::ColorType::Grayscale, png::BitDepth::One, 3, 1, &[0b1010_0000], |_| {})).unwrap();
        assert_eq!((one.mode, one.array().1), (Mode::One, vec![1, 0, 1]));
        // A palette with one transparent entry: P, its index; to RGBA, that entry's alpha is 0.
        let p = Image::decode(&png(png::ColorType::Indexed, png::BitDepth::Two, 3, 1, &[0b0001_1000], |e| {
            e.set_palette(vec![10, 20, 30, 40, 50, 60, 70, 80, 90]);
            e.set_trns(vec![255, 0]);
        }))
        .unwrap();
        assert_eq!((p.mode, p.data.clone(), p.transparency.clone()), (Mode::P, vec![0, 1, 2], Some(Transparency::Index(1))));
        assert_eq!(p.convert(Mode::RGBA).unwrap().data, vec![10, 20, 30, 255, 40, 50, 60, 0, 70, 80, 90, 255]);
        assert_eq!(p.convert(Mode::L).unwrap().data, vec![luma([10, 20, 30]), luma([40, 50, 60]), luma([70, 80, 90])]);
        assert!(matches!(Image::decode(b"GIF89a"), Err(Failure::Unsupported(_))));
        assert!(matches!(Image::decode(b"not an image"), Err(Failure::Raises(_))));
        let whole = png(png::ColorType::Rgb, png::BitDepth::Eight, 40, 30, &[7; 3600], |_| {});
        assert!(matches!(Image::decode(&whole[..whole.len() - 30]), Err(Failure::Raises(_))));
    }

    #[test]
    fn conversions_follow_pillows_arithmetic() {
        assert_eq!(luma([255, 255, 255]), 255);
        assert_eq!(luma([255, 0, 0]), 76);
        assert_eq!(hsv([255, 0, 0]), [0, 255, 255]);
        assert_eq!(hsv([0, 0, 255]), [170, 255, 255]);
        assert_eq!(hsv([255, 0, 1]), [254, 255, 255]);
        let grey = Image::new(Mode::L, 1, 1, vec![9]);
        assert_eq!(grey.convert(Mode::HSV).unwrap().data, vec![0, 0, 9]);
        // Premultiplying and back loses what Pillow loses.
        let rgba = Image::new(Mode::RGBA, 1, 1, vec![200, 100, 7, 128]);
        assert_eq!(rgba.convert(Mode::RGBa).unwrap().data, vec![100, 50, 4, 128]);
        assert_eq!(rgba.convert(Mode::RGBa).unwrap().convert(Mode::RGBA).unwrap().data, vec![199, 99, 7, 128]);
    }

    #[test]
    fn resampling_keeps_flat_images_flat_and_weights_sum_to_one() {
        let flat = Image::new(Mode::RGB, 7, 5, vec![123; 105]);
        for filter in [Filter::Bicubic, Filter::Lanczos] {
            let out = flat.resize((3, 11), filter).unwrap();
            assert_eq!(out.size(), (3, 11));
            assert!(out.data.iter().all(|v| *v == 123), "{filter:?}");
        }
        let step = Image::new(Mode::L, 4, 1, vec![0, 0, 255, 255]);
        let wide = step.resize((8, 1), Filter::Bicubic).unwrap();
        assert_eq!(wide.data.first(), Some(&0));
        assert_eq!(wide.data.last(), Some(&255));
        assert!(wide.data.windows(2).any(|w| w[0] < w[1]));
    }

    #[test]
    fn pairwise_sums_are_numpys() {
        let values: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.37).sin()).collect();
        let naive: f64 = values.iter().map(|v| f64::from(*v)).sum();
        assert!((f64::from(pairwise_sum_f32(&values)) - naive).abs() < 1e-3);
        assert_eq!(pairwise_sum_f32(&[1.0; 9]), 9.0);
    }
}
