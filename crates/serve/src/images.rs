//! What a screenshot handed to the buffer must be before it is stored and served: a PNG or a
//! JPEG that decodes whole, of a size a screen has.

/// The largest side accepted, in pixels (an 8K screen is 7,680 wide).
pub const MAX_SIDE: u32 = 8192;
/// The most pixels accepted (a 4K screen has 8.3 million).
pub const MAX_PIXELS: u64 = 40_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Jpeg,
}

impl Format {
    /// The format bytes start with, if they are one we take.
    pub fn sniff(bytes: &[u8]) -> Option<Format> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Format::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Format::Jpeg)
        } else {
            None
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
        }
    }
}

/// Checks that `bytes` are an image the buffer may keep: its format and size, or why not.
/// The whole image is decoded (a header alone can be followed by anything).
pub fn check(bytes: &[u8]) -> Result<(Format, u32, u32), String> {
    let format = Format::sniff(bytes).ok_or("not a PNG or JPEG image")?;
    let (width, height) = match format {
        Format::Png => decode_png(bytes)?,
        Format::Jpeg => decode_jpeg(bytes)?,
    };
    Ok((format, width, height))
}

fn sane(width: u32, height: u32) -> Result<(), String> {
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE || width as u64 * height as u64 > MAX_PIXELS {
        return Err(format!("a {width}×{height} image: sides of 1 to {MAX_SIDE} pixels and at most {MAX_PIXELS} pixels are accepted"));
    }
    Ok(())
}

fn decode_png(bytes: &[u8]) -> Result<(u32, u32), String> {
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), png::Limits { bytes: 512 << 20 });
    decoder.set_transformations(png::Transformations::IDENTITY);
    let header = decoder.read_header_info().map_err(|e| format!("not a valid PNG: {e}"))?;
    let (width, height) = (header.width, header.height);
    // The size first: a header may promise more pixels than anyone should decode.
    sane(width, height)?;
    let mut reader = decoder.read_info().map_err(|e| format!("not a valid PNG: {e}"))?;
    let mut pixels = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut pixels).map_err(|e| format!("not a valid PNG: {e}"))?;
    Ok((width, height))
}

fn decode_jpeg(bytes: &[u8]) -> Result<(u32, u32), String> {
    let options = zune_jpeg::zune_core::options::DecoderOptions::default().set_max_width(MAX_SIDE as usize).set_max_height(MAX_SIDE as usize);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(bytes, options);
    decoder.decode_headers().map_err(|e| format!("not a valid JPEG: {e:?}"))?;
    let (width, height) = decoder.dimensions().map(|(w, h)| (w as u32, h as u32)).ok_or("not a valid JPEG: no size")?;
    sane(width, height)?;
    decoder.decode().map_err(|e| format!("not a valid JPEG: {e:?}"))?;
    Ok((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&vec![90; (width * height * 3) as usize]).unwrap();
        drop(writer);
        out
    }

    #[test]
    fn only_whole_images_of_a_screens_size_are_taken() {
        assert_eq!(check(&png(4, 3)), Ok((Format::Png, 4, 3)));
        assert!(check(b"GIF89a....").unwrap_err().contains("not a PNG or JPEG"));
        let whole = png(40, 30);
        assert!(check(&whole[..whole.len() - 20]).unwrap_err().contains("not a valid PNG"), "a cut PNG");
        // A header that claims 100,000 × 100,000 pixels is refused before decoding.
        let mut huge = png(1, 1);
        huge[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        huge[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        assert!(check(&huge).is_err());
        let jpeg = include_bytes!("../tests/fixtures/3x2.jpg");
        assert_eq!(check(jpeg), Ok((Format::Jpeg, 3, 2)));
        assert!(check(&jpeg[..jpeg.len() / 2]).unwrap_err().contains("JPEG"), "a cut JPEG");
        assert!(check(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F']).unwrap_err().contains("JPEG"));
    }
}
