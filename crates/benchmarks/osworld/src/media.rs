//! Media files a task starts from, made from data with no encoder: a tone as a WAV file, and a
//! clip as raw video (YUV4MPEG2), both of which VLC plays. (Our `write_media` step.)

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
}
