//! OSWorld's image metrics (its `gimp.py`): the picture an agent exported from GIMP, compared
//! with the task's original or the expected picture by brightness, saturation, contrast,
//! scikit-image's SSIM, mirroring, size, colours and position, each computed as OSWorld computes
//! it through Pillow and NumPy (`pillow`).
//!
//! Where OSWorld's metric raises (a file that is no image, an index out of range), the result scores 0; a picture guigym cannot read although Pillow can
//! (GIF, TIFF, 16-bit grey, …), a bad rule, or a task's own expected file that does not open is an
//! error of the evaluation, reported apart, never a verdict.

use std::path::Path;

use serde_json::Value;

use super::pillow::{pairwise_sum_f32, Failure, Filter, Image, Mode};
use super::score;

/// How an image metric ends: a verdict, or a failure sorted into a 0 or an error.
type Judged = Result<bool, Failure>;

fn verdict(judged: Judged) -> Result<f64, String> {
    settle(judged.map(score))
}

fn settle(scored: Result<f64, Failure>) -> Result<f64, String> {
    match scored {
        Ok(s) => Ok(s),
        Err(Failure::Raises(_)) => Ok(0.0),
        Err(Failure::Unsupported(why)) => Err(why),
    }
}

/// A number as Python takes one in arithmetic (`True` is 1).
fn python_number(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        other => other.as_f64(),
    }
}

/// The agent's picture.
fn open(path: &Path) -> Result<Image, Failure> {
    Image::open(path)
}

/// The task's picture: one that does not open is the task's error, not the agent's 0.
fn open_expected(path: &Path) -> Result<Image, Failure> {
    Image::open(path).map_err(|f| match f {
        Failure::Raises(why) => Failure::Unsupported(format!("the task's expected image: {why}")),
        other => other,
    })
}

/// Both files, or a 0 when a getter found none (OSWorld's `if src_path is None`).
fn pair<'a>(src: Option<&'a Path>, tgt: Option<&'a Path>) -> Option<(&'a Path, &'a Path)> {
    Some((src?, tgt?))
}

/// `ImageStat.Stat(image.convert('L')).mean[0]`: exact, as Pillow sums a histogram.
fn brightness(image: &Image) -> Result<f64, Failure> {
    mean_u8(&image.convert(Mode::L)?.data)
}

fn mean_u8(values: &[u8]) -> Result<f64, Failure> {
    if values.is_empty() {
        return Err(Failure::Raises("the mean of no values".into()));
    }
    let sum: u64 = values.iter().map(|v| u64::from(*v)).sum();
    Ok(sum as f64 / values.len() as f64)
}

/// `np.std(np.asarray(image, dtype=np.float32))`, in NumPy's float32 order of operations.
fn contrast(image: &Image) -> f32 {
    let values: Vec<f32> = image.array().1.iter().map(|v| f32::from(*v)).collect();
    let n = values.len();
    let mean = pairwise_sum_f32(&values) / n as f32;
    let squares: Vec<f32> = values.iter().map(|v| (v - mean) * (v - mean)).collect();
    let variance = (f64::from(pairwise_sum_f32(&squares)) / n as f64) as f32;
    variance.sqrt()
}

/// `structure_check_by_mse`: the first picture resized (Lanczos) to the second's size when they
/// differ, both as RGB, the mean squared difference of values in 0–1 below the threshold
/// (float32 throughout, as NumPy computes it).
fn same_structure_by_mse(a: &Image, b: &Image, threshold: f64) -> Judged {
    let a = a.resize(b.size(), Filter::Lanczos)?.convert(Mode::RGB)?;
    let b = b.convert(Mode::RGB)?;
    let squares: Vec<f32> = a
        .data
        .iter()
        .zip(&b.data)
        .map(|(x, y)| {
            let d = f32::from(*x) / 255.0 - f32::from(*y) / 255.0;
            d * d
        })
        .collect();
    if squares.is_empty() {
        return Ok(false);
    }
    let mse = (f64::from(pairwise_sum_f32(&squares)) / squares.len() as f64) as f32;
    Ok(f64::from(mse) < threshold)
}

/// `structure_check_by_ssim`: both as RGB, of one size and at least 7 pixels each way, with
/// scikit-image's SSIM (7×7 windows, averaged over the channels) at least the threshold.
fn same_structure_by_ssim(a: &Image, b: &Image, threshold: f64) -> Judged {
    if a.width < 7 || a.height < 7 || b.width < 7 || b.height < 7 {
        return Ok(false);
    }
    let (a, b) = (a.convert(Mode::RGB)?, b.convert(Mode::RGB)?);
    if a.size() != b.size() {
        return Ok(false);
    }
    let channels: f64 = (0..3).map(|c| ssim(&a.band(c).data, &b.band(c).data, a.width, a.height)).sum();
    Ok(channels / 3.0 >= threshold)
}

/// scikit-image's `structural_similarity` of one channel of 8-bit values: 7×7 uniform windows,
/// sample covariances, K1 = 0.01, K2 = 0.03, the data range 255, averaged over the windows that
/// lie wholly inside the picture. Window sums are exact integers here where SciPy keeps running
/// float sums, so the two agree to about 1e-12.
fn ssim(x: &[u8], y: &[u8], width: usize, height: usize) -> f64 {
    const WIN: usize = 7;
    let np = (WIN * WIN) as f64;
    let cov_norm = np / (np - 1.0);
    let (c1, c2) = ((0.01f64 * 255.0).powi(2), (0.03f64 * 255.0).powi(2));
    // Column sums over the current band of 7 rows, for x, y, x², y² and xy.
    let mut columns = vec![[0i64; 5]; width];
    let add_row = |columns: &mut Vec<[i64; 5]>, row: usize, sign: i64| {
        for (col, sums) in columns.iter_mut().enumerate() {
            let (a, b) = (i64::from(x[row * width + col]), i64::from(y[row * width + col]));
            for (s, v) in sums.iter_mut().zip([a, b, a * a, b * b, a * b]) {
                *s += sign * v;
            }
        }
    };
    let mut total = 0.0f64;
    for row in 0..WIN - 1 {
        add_row(&mut columns, row, 1);
    }
    for top in 0..=height - WIN {
        add_row(&mut columns, top + WIN - 1, 1);
        let mut window = [0i64; 5];
        for sums in &columns[..WIN - 1] {
            for (w, s) in window.iter_mut().zip(sums) {
                *w += s;
            }
        }
        for left in 0..=width - WIN {
            for (w, s) in window.iter_mut().zip(&columns[left + WIN - 1]) {
                *w += s;
            }
            let [ux, uy, uxx, uyy, uxy] = window.map(|s| s as f64 / np);
            let vx = cov_norm * (uxx - ux * ux);
            let vy = cov_norm * (uyy - uy * uy);
            let vxy = cov_norm * (uxy - ux * uy);
            let (a1, a2) = (2.0 * ux * uy + c1, 2.0 * vxy + c2);
            let (b1, b2) = (ux * ux + uy * uy + c1, vx + vy + c2);
            total += (a1 * a2) / (b1 * b2);
            for (w, s) in window.iter_mut().zip(&columns[left]) {
                *w -= s;
            }
        }
        add_row(&mut columns, top, -1);
    }
    total / ((height - WIN + 1) * (width - WIN + 1)) as f64
}

/// `check_brightness_decrease_and_structure_sim`: the result (`src`) is darker than the original
/// (`tgt`), and both, normalised to a mean brightness of 128, differ by a mean squared error
/// below the threshold (0.03 unless the task's options say).
pub fn check_brightness_decrease_and_structure_sim(src: Option<&Path>, tgt: Option<&Path>, options: &Value) -> Result<f64, String> {
    let threshold = match options.get("threshold") {
        None => 0.03,
        Some(v) => python_number(v).ok_or_else(|| format!("check_brightness_decrease_and_structure_sim: threshold {v} is not a number"))?,
    };
    let Some((src, tgt)) = pair(src, tgt) else { return Ok(0.0) };
    verdict((|| {
        let (src, tgt) = (open(src)?, open_expected(tgt)?);
        let (b_src, b_tgt) = (brightness(&src)?, brightness(&tgt)?);
        let normalised = |image: &Image, mean: f64| -> Result<Image, Failure> {
            if mean == 0.0 {
                return Err(Failure::Raises("float division by zero".into()));
            }
            let factor = 128.0 / mean;
            Ok(image.point(|v| (f64::from(v) * factor).clamp(0.0, 255.0) as u8))
        };
        let same = same_structure_by_mse(&normalised(&src, b_src)?, &normalised(&tgt, b_tgt)?, threshold)?;
        Ok(b_tgt > b_src && same)
    })())
}

/// `check_saturation_increase_and_structure_sim`: the result's mean HSV saturation is above the
/// original's, and their hue and value bands are alike by SSIM.
pub fn check_saturation_increase_and_structure_sim(src: Option<&Path>, tgt: Option<&Path>) -> Result<f64, String> {
    let Some((src, tgt)) = pair(src, tgt) else { return Ok(0.0) };
    verdict((|| {
        let (src, tgt) = (open(src)?.convert(Mode::HSV)?, open_expected(tgt)?.convert(Mode::HSV)?);
        let increased = mean_u8(&tgt.band(1).data)? < mean_u8(&src.band(1).data)?;
        let same = same_structure_by_ssim(&src.band(0), &tgt.band(0), 0.9)? && same_structure_by_ssim(&src.band(2), &tgt.band(2), 0.9)?;
        Ok(increased && same)
    })())
}

/// `check_contrast_increase_and_structure_sim`: the result's values spread more than the
/// original's (NumPy's float32 standard deviation) and SSIM is at least 0.65.
pub fn check_contrast_increase_and_structure_sim(src: Option<&Path>, tgt: Option<&Path>) -> Result<f64, String> {
    let Some((src, tgt)) = pair(src, tgt) else { return Ok(0.0) };
    verdict((|| {
        let (src, tgt) = (open(src)?, open_expected(tgt)?);
        let higher = contrast(&tgt) < contrast(&src);
        Ok(higher && same_structure_by_ssim(&src, &tgt, 0.65)?)
    })())
}

/// `check_structure_sim`: pictures of one size, alike by SSIM (≥ 0.9). OSWorld catches every
/// exception here, its own file's too, and scores 0.
pub fn check_structure_sim(src: Option<&Path>, tgt: Option<&Path>) -> Result<f64, String> {
    let Some((src, tgt)) = pair(src, tgt) else { return Ok(0.0) };
    verdict((|| {
        let (src, tgt) = (open(src)?, open(tgt)?);
        Ok(src.size() == tgt.size() && same_structure_by_ssim(&src, &tgt, 0.9)?)
    })())
}

/// `check_file_exists_and_structure_sim`: the exported file is there and alike by SSIM.
pub fn check_file_exists_and_structure_sim(src: Option<&Path>, tgt: Option<&Path>) -> Result<f64, String> {
    let Some((src, tgt)) = pair(src, tgt) else { return Ok(0.0) };
    if !src.is_file() {
        return Ok(0.0);
    }
    verdict((|| same_structure_by_ssim(&open(src)?, &open_expected(tgt)?, 0.9))())
}

/// `check_structure_sim_resized`: the result, cropped to what is not transparent, resized
/// (bicubic) to the expected picture's size, alike by SSIM.
pub fn check_structure_sim_resized(src: Option<&Path>, tgt: Option<&Path>) -> Result<f64, String> {
    let Some((src, tgt)) = pair(src, tgt) else { return Ok(0.0) };
    verdict((|| {
        let (src, tgt) = (open(src)?, open_expected(tgt)?);
        let resized = if matches!(src.mode, Mode::RGBA | Mode::LA) || src.transparency.is_some() {
            let rgba = src.convert(Mode::RGBA)?;
            let Some(bbox) = rgba.band(3).bbox() else { return Ok(false) };
            rgba.crop(bbox).convert(Mode::RGB)?.resize(tgt.size(), Filter::Bicubic)?
        } else {
            src.resize(tgt.size(), Filter::Bicubic)?
        };
        same_structure_by_ssim(&resized, &tgt.convert(Mode::RGB)?, 0.9)
    })())
}

/// `check_image_mirror`: the original flipped left to right is the result, by SSIM ≥ 0.99.
pub fn check_image_mirror(src: Option<&Path>, tgt: Option<&Path>) -> Result<f64, String> {
    let Some((src, tgt)) = pair(src, tgt) else { return Ok(0.0) };
    verdict((|| same_structure_by_ssim(&open(src)?.flip_left_right(), &open_expected(tgt)?, 0.99))())
}

/// `check_palette_and_structure_sim`: the result is a palette picture (mode P) alike the
/// expected one by SSIM. OSWorld catches every exception here and scores 0.
pub fn check_palette_and_structure_sim(src: Option<&Path>, tgt: Option<&Path>) -> Result<f64, String> {
    let Some((src, tgt)) = pair(src, tgt) else { return Ok(0.0) };
    verdict((|| {
        let (src, tgt) = (open(src)?, open(tgt)?);
        Ok(src.mode == Mode::P && same_structure_by_ssim(&src.convert(Mode::RGB)?, &tgt, 0.9)?)
    })())
}

/// `check_image_size`: the picture's size, or with `ignore_transparent` (and always for a
/// picture with a transparent colour, as OSWorld's condition reads) the size of what is not
/// transparent, equals the rule's `width` and `height` where given.
pub fn check_image_size(src: Option<&Path>, rule: &Value) -> Result<f64, String> {
    let Some(src) = src else { return Ok(0.0) };
    if !rule.is_object() {
        return Err(format!("check_image_size: the rule {rule} is not an object"));
    }
    let wanted = |name: &str, actual: usize| -> Result<bool, String> {
        Ok(match rule.get(name) {
            None | Some(Value::Null) => true,
            Some(Value::Number(n)) => n.as_f64() == Some(actual as f64),
            Some(Value::Bool(b)) => usize::from(*b) == actual,
            Some(_) => false,
        })
    };
    let ignore = super::bool_opt(rule, "ignore_transparent");
    // Pillow decodes the pixels only when it needs them, for the box of what is not
    // transparent: a picture cut short after its header still has its size.
    let size = (|| {
        let header = Image::header(src)?;
        if (ignore && header.alpha) || header.transparency {
            let alpha = open(src)?.convert(Mode::RGBA)?.band(3);
            Ok(alpha.bbox().map_or((0, 0), |(l, t, r, b)| (r - l, b - t)))
        } else {
            Ok(header.size)
        }
    })();
    match size {
        Ok((w, h)) => Ok(score(wanted("width", w)? && wanted("height", h)?)),
        Err(failure) => verdict(Err(failure)),
    }
}

/// `check_image_file_size`: the file is smaller than the rule's `max_size` bytes.
pub fn check_image_file_size(src: Option<&Path>, rule: &Value) -> Result<f64, String> {
    let max = rule.get("max_size").and_then(python_number).ok_or_else(|| format!("check_image_file_size: the rule {rule} has no numeric \"max_size\""))?;
    let Some(src) = src else { return Ok(0.0) };
    let Ok(meta) = std::fs::metadata(src) else { return Ok(0.0) };
    Ok(score((meta.len() as f64) < max))
}

/// `check_triangle_position`: the second-least frequent colour (OSWorld takes index 1 of the
/// colours sorted by count, rarest first) has its centroid within 5 % of the picture's centre.
/// Ties in count keep the colours' own order (NumPy's sort of a few values; with many colours
/// its quicksort may order ties otherwise).
pub fn check_triangle_position(tgt: Option<&Path>) -> Result<f64, String> {
    let Some(tgt) = tgt else { return Ok(0.0) };
    verdict((|| {
        let image = open(tgt)?;
        let (shape, values) = image.array();
        let Some(&bands) = shape.get(2) else { return Err(Failure::Raises("tuple index out of range".into())) };
        let mut counts: std::collections::BTreeMap<&[u8], usize> = std::collections::BTreeMap::new();
        for px in values.chunks_exact(bands) {
            *counts.entry(px).or_default() += 1;
        }
        let mut colours: Vec<(&[u8], usize)> = counts.into_iter().collect();
        colours.sort_by_key(|(_, n)| *n);
        let Some(&(colour, _)) = colours.get(1) else { return Err(Failure::Raises("index 1 is out of bounds".into())) };
        let (mut rows, mut cols, mut n) = (0u64, 0u64, 0u64);
        for (i, px) in values.chunks_exact(bands).enumerate() {
            if px == colour {
                rows += (i / image.width) as u64;
                cols += (i % image.width) as u64;
                n += 1;
            }
        }
        let centroid = [rows as f64 / n as f64, cols as f64 / n as f64];
        let centre = [image.height as f64 / 2.0, image.width as f64 / 2.0];
        let tolerance = [0.05 * image.height as f64, 0.05 * image.width as f64];
        Ok((0..2).all(|i| (centroid[i] - centre[i]).abs() < tolerance[i]))
    })())
}

/// `check_textbox_on_leftside`: some dark pixel (grey below 128) lies in the left 5 % of the
/// picture.
pub fn check_textbox_on_leftside(src: Option<&Path>) -> Result<f64, String> {
    let Some(src) = src else { return Ok(0.0) };
    verdict((|| {
        let grey = open(src)?.convert(Mode::L)?;
        let leftmost = grey.data.chunks_exact(grey.width.max(1)).filter_map(|row| row.iter().position(|v| *v < 128)).min().unwrap_or(grey.width);
        Ok((leftmost as f64) < grey.width as f64 * 0.05)
    })())
}

/// `check_green_background`: wherever the expected picture is not black, the result is green
/// (its green above its red and blue). OSWorld indexes both arrays as `[x, y]`, row by column
/// number, so a picture that is not square runs out of range (it raises) unless a pixel that is
/// not green is met first; this walks them in the same order.
pub fn check_green_background(src: Option<&Path>, tgt: Option<&Path>) -> Result<f64, String> {
    let Some((src, tgt)) = pair(src, tgt) else { return Ok(0.0) };
    verdict((|| {
        let (src, tgt) = (open(src)?, open_expected(tgt)?);
        let (src_shape, src_values) = src.array();
        let (tgt_shape, tgt_values) = tgt.array();
        let at = |shape: &[usize], values: &'_ [u8], row: usize, col: usize| -> Result<Vec<u8>, Failure> {
            if row >= shape[0] || col >= shape[1] {
                return Err(Failure::Raises("index out of bounds".into()));
            }
            let Some(&bands) = shape.get(2) else { return Err(Failure::Raises("invalid index to scalar variable".into())) };
            let i = (row * shape[1] + col) * bands;
            Ok(values[i..i + bands.min(3)].to_vec())
        };
        for x in 0..tgt.width {
            for y in 0..tgt.height {
                if at(&tgt_shape, &tgt_values, x, y)? != [0, 0, 0] {
                    let px = at(&src_shape, &src_values, x, y)?;
                    let [r, g, b] = px[..] else { return Err(Failure::Raises("not enough values to unpack".into())) };
                    if !(g > r && g > b) {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    })())
}

/// `compare_image_list` of one picture: the result, resized (Lanczos) to the expected size and
/// converted to its mode, differs nowhere (for pictures with alpha, Pillow's bounding box looks
/// at the alpha band alone).
pub fn compare_image_list(pred: Option<&Path>, gold: Option<&Path>) -> Result<f64, String> {
    let Some((pred, gold)) = pair(pred, gold) else { return Ok(0.0) };
    verdict((|| {
        let (pred, gold) = (open(pred)?, open_expected(gold)?);
        let pred = pred.resize(gold.size(), Filter::Lanczos)?;
        let pred = if pred.mode == gold.mode { pred } else { pred.convert(gold.mode)? };
        let difference: Vec<u8> = pred.data.iter().zip(&gold.data).map(|(a, b)| a.abs_diff(*b)).collect();
        Ok(Image::new(gold.mode, gold.width, gold.height, difference).bbox().is_none())
    })())
}

/// `compare_images` (OSWorld's `vlc.py`): the SSIM of the two pictures in grey, both resized
/// (Lanczos) to the smaller size (sizes compared as Python compares tuples, width first), as
/// a fraction; with `reference_base_result`, only what it rises above that base, rescaled.
pub fn compare_images(a: Option<&Path>, b: Option<&Path>, options: &Value) -> Result<f64, String> {
    let base = match options.get("reference_base_result") {
        None | Some(Value::Null) => None,
        Some(v) => Some(python_number(v).ok_or_else(|| format!("compare_images: reference_base_result {v} is not a number"))?),
    };
    let Some((a, b)) = pair(a, b) else { return Ok(0.0) };
    settle((|| {
        let (a, b) = (open(a)?.convert(Mode::L)?, open_expected(b)?.convert(Mode::L)?);
        let size = a.size().min(b.size());
        let (a, b) = (a.resize(size, Filter::Lanczos)?, b.resize(size, Filter::Lanczos)?);
        if size.0 < 7 || size.1 < 7 {
            return Err(Failure::Raises("win_size exceeds image extent".into()));
        }
        let similarity = ssim(&a.data, &b.data, size.0, size.1);
        Ok(match base {
            Some(base) if similarity >= base + 0.01 => (similarity - base) / (1.0 - base),
            Some(_) => 0.0,
            None => similarity,
        })
    })())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssim_of_a_picture_with_itself_is_one_and_falls_with_noise() {
        let (w, h) = (20, 12);
        let x: Vec<u8> = (0..w * h).map(|i| ((i * 37) % 251) as u8).collect();
        assert!((ssim(&x, &x, w, h) - 1.0).abs() < 1e-12);
        let y: Vec<u8> = x.iter().enumerate().map(|(i, v)| v.wrapping_add((i % 7) as u8 * 20)).collect();
        let s = ssim(&x, &y, w, h);
        assert!(s < 0.9 && s > -1.0, "{s}");
        // Against a direct sum over one window: 7×7 pixels give one window.
        let small: Vec<u8> = (0..49).map(|i| (i * 5) as u8).collect();
        let other: Vec<u8> = (0..49).map(|i| (250 - i * 3) as u8).collect();
        let (mx, my) = (small.iter().map(|v| f64::from(*v)).sum::<f64>() / 49.0, other.iter().map(|v| f64::from(*v)).sum::<f64>() / 49.0);
        let cov: f64 = small.iter().zip(&other).map(|(a, b)| (f64::from(*a) - mx) * (f64::from(*b) - my)).sum::<f64>() / 48.0;
        let vx: f64 = small.iter().map(|a| (f64::from(*a) - mx).powi(2)).sum::<f64>() / 48.0;
        let vy: f64 = other.iter().map(|b| (f64::from(*b) - my).powi(2)).sum::<f64>() / 48.0;
        let (c1, c2) = (6.5025, 58.5225);
        let direct = (2.0 * mx * my + c1) * (2.0 * cov + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2));
        assert!((ssim(&small, &other, 7, 7) - direct).abs() < 1e-9);
    }

    fn write_png(dir: &Path, name: &str, color: png::ColorType, (w, h): (u32, u32), data: &[u8]) -> std::path::PathBuf {
        let path = dir.join(name);
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, w, h);
        encoder.set_color(color);
        encoder.write_header().unwrap().write_image_data(data).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        path
    }

    #[test]
    fn where_osworld_raises_on_the_agents_picture_it_scores_zero() {
        let dir = std::env::temp_dir().join(format!("guigym-image-raises-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let grey = write_png(&dir, "grey.png", png::ColorType::Grayscale, (8, 8), &[90; 64]);
        let colour = write_png(&dir, "colour.png", png::ColorType::Rgb, (8, 8), &[90; 192]);
        // One colour: there is no second-rarest; a grey picture has no colour axis.
        assert_eq!(check_triangle_position(Some(&colour)), Ok(0.0));
        assert_eq!(check_triangle_position(Some(&grey)), Ok(0.0));
        // Not square, and all green where the figure is not black: the index runs out.
        let green: Vec<u8> = (0..12 * 8).flat_map(|_| [10, 200, 10]).collect();
        let wide_green = write_png(&dir, "wide_green.png", png::ColorType::Rgb, (12, 8), &green);
        let white: Vec<u8> = vec![255; 12 * 8 * 3];
        let wide_figure = write_png(&dir, "wide_figure.png", png::ColorType::Rgb, (12, 8), &white);
        assert_eq!(check_green_background(Some(&wide_green), Some(&wide_figure)), Ok(0.0));
        // Square, the same colours: green.
        let square_green = write_png(&dir, "square_green.png", png::ColorType::Rgb, (8, 8), &green[..8 * 8 * 3]);
        let square_figure = write_png(&dir, "square_figure.png", png::ColorType::Rgb, (8, 8), &white[..8 * 8 * 3]);
        assert_eq!(check_green_background(Some(&square_green), Some(&square_figure)), Ok(1.0));
        // Brightness of a black picture: the normalising factor divides by zero.
        let black = write_png(&dir, "black.png", png::ColorType::Rgb, (8, 8), &[0; 192]);
        assert_eq!(check_brightness_decrease_and_structure_sim(Some(&black), Some(&colour), &Value::Null), Ok(0.0));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn contrast_is_numpys_float32_standard_deviation() {
        let image = Image::new(Mode::L, 4, 1, vec![0, 0, 255, 255]);
        assert_eq!(contrast(&image), 127.5);
    }

    #[test]
    fn missing_pictures_score_zero_and_bad_rules_are_errors() {
        assert_eq!(check_structure_sim(None, None), Ok(0.0));
        assert_eq!(check_image_size(None, &serde_json::json!({"width": 3})), Ok(0.0));
        assert!(check_image_file_size(None, &serde_json::json!({})).is_err());
        let dir = std::env::temp_dir().join(format!("guigym-image-metric-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let junk = dir.join("junk.png");
        std::fs::write(&junk, b"no picture").unwrap();
        // Not a picture: OSWorld raises on the agent's file (0); on the task's, it is an error.
        let good = dir.join("good.png");
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, 8, 8);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.write_header().unwrap().write_image_data(&[9; 64]).unwrap();
        std::fs::write(&good, &bytes).unwrap();
        assert_eq!(check_image_mirror(Some(&good), Some(&junk)).map_err(|e| e.contains("expected image")), Err(true));
        assert_eq!(check_image_mirror(Some(&junk), Some(&good)), Ok(0.0));
        assert_eq!(check_image_mirror(Some(&good), Some(&good)), Ok(1.0));
        assert_eq!(check_structure_sim(Some(&junk), Some(&junk)), Ok(0.0));
        assert_eq!(check_textbox_on_leftside(Some(&junk)), Ok(0.0));
        assert!(check_image_size(Some(&junk), &serde_json::json!([1])).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
