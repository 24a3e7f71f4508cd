//! Media files a task starts from, made from data: a tone as a WAV file and a clip as raw video
//! (YUV4MPEG2), both of which VLC plays, and a picture as a PNG, which GIMP opens. (Our
//! `write_media` step, and the `picture_file` getter for a picture's expected form.)

/// The tone's samples per second: enough for any tone a task names, small on disk.
const RATE: u32 = 8000;

/// A WAV file of `seconds` of a sine tone at `hz`: mono, 8-bit.
pub fn tone_wav(hz: f64, seconds: f64) -> Vec<u8> {
    let samples = (seconds * f64::from(RATE)).round() as u32;
    let mut out = Vec::with_capacity(44 + samples as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + samples).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes()); // the format chunk's length
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&RATE.to_le_bytes());
    out.extend_from_slice(&RATE.to_le_bytes()); // bytes per second
    out.extend_from_slice(&1u16.to_le_bytes()); // bytes per frame
    out.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&samples.to_le_bytes());
    let step = std::f64::consts::TAU * hz / f64::from(RATE);
    out.extend((0..samples).map(|i| (128.0 + 60.0 * (step * f64::from(i)).sin()) as u8));
    out
}

/// A clip of `seconds` at 5 frames a second, 64×48 pixels: a gradient that moves, in `shade`
/// (0–255), so that two clips of a task look apart.
pub fn clip_y4m(seconds: f64, shade: u8) -> Vec<u8> {
    const W: usize = 64;
    const H: usize = 48;
    let frames = (seconds * 5.0).round().max(1.0) as usize;
    let mut out = format!("YUV4MPEG2 W{W} H{H} F5:1 Ip A1:1 C420jpeg\n").into_bytes();
    for f in 0..frames {
        out.extend_from_slice(b"FRAME\n");
        out.extend((0..W * H).map(|p| ((p % W + p / W + f * 3) % 200) as u8 + 28));
        out.extend(std::iter::repeat_n(shade, W * H / 4)); // U
        out.extend(std::iter::repeat_n(255 - shade, W * H / 4)); // V
    }
    out
}

/// A picture of `width`×`height` drawn from `seed`: light across it, and discs of colour, none
/// symmetric, so that a mirrored, darker or scaled copy tells apart from the original. With
/// `mirrored`, the same picture flipped left to right; each value times `brightness`; then
/// turned clockwise `quarter_turns` times (an odd number swaps its sides). An RGB PNG.
pub fn picture_png(width: u32, height: u32, seed: u64, mirrored: bool, brightness: f64, quarter_turns: u8) -> Vec<u8> {
    let mut rng = guigym_core::Rng::new(seed);
    let (w, h) = (width as f64, height as f64);
    let discs: Vec<(f64, f64, f64, [f64; 3])> = (0..7)
        .map(|_| {
            let r = rng.range(6, (width.min(height) / 4).max(7) as i64) as f64;
            let colour = [rng.range(0, 255) as f64, rng.range(0, 255) as f64, rng.range(0, 255) as f64];
            (rng.range(0, width as i64) as f64, rng.range(0, height as i64) as f64, r, colour)
        })
        .collect();
    let mut pixels = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        for x in 0..width {
            let x = if mirrored { width - 1 - x } else { x };
            let (fx, fy) = (f64::from(x), f64::from(y));
            let mut c = [60.0 + 150.0 * fx / w, 40.0 + 160.0 * fy / h, 200.0 - 120.0 * fx / w + 20.0 * (fy / 11.0).sin()];
            for (cx, cy, r, colour) in &discs {
                if (fx - cx).powi(2) + (fy - cy).powi(2) < r * r {
                    for (v, d) in c.iter_mut().zip(colour) {
                        *v = 0.35 * *v + 0.65 * d;
                    }
                }
            }
            pixels.extend(c.map(|v| (v * brightness).clamp(0.0, 255.0) as u8));
        }
    }
    let (mut pixels, mut width, mut height) = (pixels, width, height);
    for _ in 0..quarter_turns % 4 {
        pixels = turned_clockwise(&pixels, width, height);
        (width, height) = (height, width);
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    match encoder.write_header().and_then(|mut writer| writer.write_image_data(&pixels)) {
        Ok(()) => out,
        // Writing to memory with the sizes just given cannot fail.
        Err(e) => unreachable!("a PNG in memory: {e}"),
    }
}

/// A one-page PDF (US Letter) showing `lines` in Helvetica, all ASCII (other characters are
/// written as `?`), so that it can be written as text; the cross-reference table's offsets are
/// the text's own.
pub fn pdf_document(lines: &[&str]) -> String {
    let escape = |line: &str| -> String {
        line.chars()
            .map(|c| match c {
                '(' | ')' | '\\' => format!("\\{c}"),
                ' '..='~' => c.to_string(),
                _ => "?".to_string(),
            })
            .collect()
    };
    let mut content = String::from("BT /F1 14 Tf 72 720 Td 18 TL\n");
    for line in lines {
        content.push_str(&format!("({}) Tj T*\n", escape(line)));
    }
    content.push_str("ET\n");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".to_string(),
        format!("<< /Length {} >>\nstream\n{content}endstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut out = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.push_str(&format!("{} 0 obj\n{object}\nendobj\n", i + 1));
    }
    let xref = out.len();
    out.push_str(&format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1));
    for offset in offsets {
        out.push_str(&format!("{offset:010} 00000 n \n"));
    }
    out.push_str(&format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1));
    out
}

/// RGB pixels of a `width`×`height` picture turned a quarter clockwise (`height`×`width`): the
/// new row `y` is the old column `y`, read from the bottom up.
fn turned_clockwise(pixels: &[u8], width: u32, height: u32) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let mut out = Vec::with_capacity(pixels.len());
    for y in 0..w {
        for x in 0..h {
            let from = ((h - 1 - x) * w + y) * 3;
            out.extend_from_slice(&pixels[from..from + 3]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_files_have_the_sizes_their_headers_say() {
        let wav = tone_wav(440.0, 2.0);
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(wav[40..44].try_into().unwrap()) as usize, wav.len() - 44);
        assert_eq!(wav.len(), 44 + 16000);
        let clip = clip_y4m(2.0, 90);
        let frame = 6 + 64 * 48 * 3 / 2;
        let header = clip.iter().position(|b| *b == b'\n').unwrap() + 1;
        assert_eq!(clip.len(), header + 10 * frame);
    }

    fn decode(bytes: Vec<u8>) -> Vec<u8> {
        let mut reader = png::Decoder::new(&bytes[..]).read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut pixels).unwrap();
        pixels
    }

    #[test]
    fn a_turned_picture_is_the_picture_a_quarter_clockwise() {
        let plain = decode(picture_png(30, 20, 7, false, 1.0, 0));
        let turned = decode(picture_png(30, 20, 7, false, 1.0, 1));
        assert_eq!(decode(picture_png(30, 20, 7, false, 1.0, 4)), plain);
        // The top-left corner goes to the top right; (x, y) to (19 - y, x) of a 20-wide picture.
        for (x, y) in [(0, 0), (29, 0), (5, 13), (29, 19)] {
            let (a, b) = ((y * 30 + x) * 3, ((x * 20) + (19 - y)) * 3);
            assert_eq!(plain[a..a + 3], turned[b..b + 3], "({x}, {y})");
        }
    }

    #[test]
    fn a_pdf_document_is_text_whose_offsets_hold() {
        let pdf = pdf_document(&["Quarterly (draft)", "Café"]);
        assert!(pdf.is_ascii() && pdf.starts_with("%PDF-1.4") && pdf.contains("(Quarterly \\(draft\\)) Tj") && pdf.contains("(Caf?) Tj"));
        let xref: usize = pdf.lines().rev().nth(1).unwrap().parse().unwrap();
        assert!(pdf[xref..].starts_with("xref"));
        let first: usize = pdf[xref..].lines().nth(3).unwrap()[..10].parse().unwrap();
        assert!(pdf[first..].starts_with("1 0 obj"));
    }

    #[test]
    fn a_mirrored_picture_is_the_picture_flipped() {
        let (plain, mirrored) = (decode(picture_png(30, 20, 7, false, 1.0, 0)), decode(picture_png(30, 20, 7, true, 1.0, 0)));
        assert_ne!(plain, mirrored);
        for y in 0..20 {
            for x in 0..30 {
                let (a, b) = ((y * 30 + x) * 3, (y * 30 + 29 - x) * 3);
                assert_eq!(plain[a..a + 3], mirrored[b..b + 3]);
            }
        }
        assert_ne!(decode(picture_png(30, 20, 8, false, 1.0, 0)), plain, "another seed, another picture");
    }
}
