//! `check_mp3_meta` (OSWorld's `others.py`): an MP3's tags as mutagen's `EasyID3` reads them,
//! each against a rule. The ID3v2 tag at the file's start (versions 2.2, 2.3 and 2.4: the whole
//! tag's or a frame's unsynchronisation, an extended header, iTunes' plain frame sizes in 2.4,
//! repeated frames merged), and an ID3v1 tag at the file's end for what the v2 tag lacks (or
//! alone); no tag at all raises, as in mutagen.

use std::path::Path;

use serde_json::Value;

use super::rules::{match_value_to_rule, Raise};

/// EasyID3's keys that are one text frame's strings, the frame's id, and its v2.2 id.
const TEXT_KEYS: &[(&str, &str, &str)] = &[
    ("grouping", "TIT1", "TT1"),
    ("title", "TIT2", "TT2"),
    ("version", "TIT3", "TT3"),
    ("artist", "TPE1", "TP1"),
    ("albumartist", "TPE2", "TP2"),
    ("conductor", "TPE3", "TP3"),
    ("arranger", "TPE4", "TP4"),
    ("album", "TALB", "TAL"),
    ("composer", "TCOM", "TCM"),
    ("lyricist", "TEXT", "TXT"),
    ("author", "TOLY", "TOL"),
    ("tracknumber", "TRCK", "TRK"),
    ("discnumber", "TPOS", "TPA"),
    ("bpm", "TBPM", "TBP"),
    ("copyright", "TCOP", "TCR"),
    ("encodedby", "TENC", "TEN"),
    ("length", "TLEN", "TLE"),
    ("media", "TMED", "TMT"),
    ("organization", "TPUB", "TPB"),
    ("isrc", "TSRC", "TRC"),
    ("language", "TLAN", "TLA"),
    ("compilation", "TCMP", "TCP"),
    ("mood", "TMOO", ""),
    ("discsubtitle", "TSST", ""),
    ("albumsort", "TSOA", "TSA"),
    ("composersort", "TSOC", "TSC"),
    ("artistsort", "TSOP", "TSP"),
    ("titlesort", "TSOT", "TST"),
];

/// EasyID3's other keys (genre names, dates, user-defined frames, a sort order read from a
/// user-defined frame where its own is absent): not read here.
const OTHER_KEYS: &[&str] = &[
    "acoustid_fingerprint",
    "acoustid_id",
    "albumartistsort",
    "asin",
    "barcode",
    "catalognumber",
    "date",
    "genre",
    "musicbrainz_albumartistid",
    "musicbrainz_albumid",
    "musicbrainz_albumstatus",
    "musicbrainz_albumtype",
    "musicbrainz_artistid",
    "musicbrainz_discid",
    "musicbrainz_releasegroupid",
    "musicbrainz_releasetrackid",
    "musicbrainz_trackid",
    "musicbrainz_trmid",
    "musicbrainz_workid",
    "musicip_fingerprint",
    "musicip_puid",
    "originaldate",
    "performer",
    "releasecountry",
    "website",
];

/// What EasyID3 does with a key: the frame it reads, or `None` for a key it does not know
/// (`get` gives `""`); an error for a key it reads in a way not reproduced here.
fn frame_of(key: &str) -> Result<Option<&'static str>, String> {
    let key = key.to_lowercase();
    if let Some((_, frame, _)) = TEXT_KEYS.iter().find(|(k, _, _)| *k == key) {
        return Ok(Some(frame));
    }
    // fnmatch's `replaygain_*_gain`: the two underscores are two characters.
    let replaygain = key.len() >= "replaygain__gain".len() && key.starts_with("replaygain_") && (key.ends_with("_gain") || key.ends_with("_peak"));
    if OTHER_KEYS.contains(&key.as_str()) || key.starts_with("performer:") || replaygain {
        return Err(format!("check_mp3_meta: EasyID3's key {key:?} is not read here (its text keys are: {})", keys()));
    }
    Ok(None)
}

/// Why a task's `check_mp3_meta` rules cannot be judged here, if they cannot.
pub fn rules_unsupported(meta: &Value) -> Option<String> {
    meta.as_object()?.keys().find_map(|k| frame_of(k).err())
}

fn keys() -> String {
    TEXT_KEYS.iter().map(|(k, _, _)| *k).collect::<Vec<_>>().join(", ")
}

/// `check_mp3_meta(result, meta)`: every key's value (its strings joined by `,`, or `""` where
/// the frame is absent) against its rule, as long as the rules before it held.
pub(super) fn check_mp3_meta(result: Option<&Path>, meta: &Value) -> Result<f64, String> {
    let Some(path) = result else { return Ok(0.0) };
    let rules = meta.as_object().ok_or("check_mp3_meta's rules are not an object of keys")?;
    let frames: Vec<Option<&str>> = rules.keys().map(|k| frame_of(k)).collect::<Result<_, _>>()?;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let tag = read_tag(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    for (rule, frame) in rules.values().zip(frames) {
        let value = frame.and_then(|f| tag.iter().find(|(id, _)| id == f)).map(|(_, text)| text.join(",")).unwrap_or_default();
        match match_value_to_rule(&Value::String(value), rule) {
            Ok(true) => {}
            // Python's `and`: the first miss decides, later rules are not tried. (The rules
            // are read in their keys' order: a JSON object here keeps no other.)
            Ok(false) => return Ok(0.0),
            Err(Raise::Agent) => return Err(format!("check_mp3_meta: a tag's text cannot be compared by {rule}")),
            Err(Raise::Task(e)) => return Err(e),
        }
    }
    Ok(1.0)
}

/// A file's text frames, (v2.3/2.4 id, strings), as mutagen's `ID3` loads them.
type Frames = Vec<(String, Vec<String>)>;

fn read_tag(bytes: &[u8]) -> Result<Frames, String> {
    let mut frames = match v2_frames(bytes)? {
        Some(frames) => frames,
        None => return v1_frames(bytes).ok_or_else(|| "no ID3 tag (mutagen raises ID3NoHeaderError)".to_string()),
    };
    for (id, text) in v1_frames(bytes).unwrap_or_default() {
        if !frames.iter().any(|(f, _)| *f == id) {
            frames.push((id, text));
        }
    }
    Ok(frames)
}

fn syncsafe(b: &[u8]) -> usize {
    b.iter().fold(0usize, |n, x| (n << 7) | usize::from(x & 0x7f))
}

fn big_endian(b: &[u8]) -> usize {
    b.iter().fold(0usize, |n, x| (n << 8) | usize::from(*x))
}

/// Unsynchronisation undone (`FF 00` is `FF`); `None` where mutagen finds the data was never
/// unsynchronised (an `FF` at the end, or before a byte of `E0` or more) and keeps it as it is.
fn resync(data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        out.push(data[i]);
        if data[i] == 0xff {
            match data.get(i + 1) {
                None => return None,
                Some(&next) if next >= 0xe0 => return None,
                Some(0) => i += 1,
                Some(_) => {}
            }
        }
        i += 1;
    }
    Some(out)
}

/// The v2.3/2.4 id of a text frame read here, by its three-letter v2.2 name.
fn v22_text_frame(name: &[u8]) -> Option<&'static str> {
    TEXT_KEYS.iter().find(|(_, _, old)| !old.is_empty() && old.as_bytes() == name).map(|(_, id, _)| *id)
}

/// The frames mutagen 1.48 knows (its `Frames`), by their v2.3/2.4 ids.
const KNOWN_FRAMES: &str = "AENC APIC ASPI CHAP COMM COMR CTOC ENCR EQU2 ETCO GEOB GRID GRP1 IPLS LINK MCDI MLLT MVIN MVNM OWNE PCNT PCST POPM POSS PRIV RBUF RVA2 RVAD RVRB SEEK SIGN SYLT SYTC TALB TBPM TCAT TCMP TCOM TCON TCOP TDAT TDEN TDES TDLY TDOR TDRC TDRL TDTG TENC TEXT TFLT TGID TIME TIPL TIT1 TIT2 TIT3 TKEY TKWD TLAN TLEN TMCL TMED TMOO TOAL TOFN TOLY TOPE TORY TOWN TPE1 TPE2 TPE3 TPE4 TPOS TPRO TPUB TRCK TRDA TRSN TRSO TSIZ TSO2 TSOA TSOC TSOP TSOT TSRC TSSE TSST TXXX TYER UFID USER USLT WCOM WCOP WFED WOAF WOAR WOAS WORS WPAY WPUB WXXX";

/// Whether four bytes name a frame mutagen knows.
fn known_frame(id: &[u8]) -> bool {
    id.len() == 4 && KNOWN_FRAMES.split(' ').any(|k| k.as_bytes() == id)
}

/// The text frames of the ID3v2 tag at the file's start; `None` without one (or one of a
/// version mutagen does not read, which it takes as none).
fn v2_frames(bytes: &[u8]) -> Result<Option<Frames>, String> {
    if bytes.len() < 10 || &bytes[..3] != b"ID3" || !(2..=4).contains(&bytes[3]) {
        return Ok(None);
    }
    let (major, flags) = (bytes[3], bytes[5]);
    if bytes[6..10].iter().any(|b| b & 0x80 != 0) {
        return Err("the ID3 tag's size is not synchsafe".into());
    }
    if (major == 4 && flags & 0x0f != 0) || (major == 3 && flags & 0x1f != 0) {
        return Err(format!("the ID3 tag has invalid flags {flags:#04x}"));
    }
    let mut size = syncsafe(&bytes[6..10]);
    let mut at = 10;
    if flags & 0x40 != 0 {
        let head = bytes.get(10..14).ok_or("the ID3 tag's extended header is cut short")?;
        // A tagger that sets the flag but writes no extended header: a frame follows.
        if !known_frame(head) {
            let extended = if major == 4 {
                if head.iter().any(|b| b & 0x80 != 0) {
                    return Err("the extended header's size is not synchsafe".into());
                }
                syncsafe(head).checked_sub(4).ok_or("an invalid extended header size")?
            } else {
                big_endian(head)
            };
            at = 14 + extended;
            size = size.checked_sub(4 + extended).ok_or("an extended header longer than the tag")?;
        }
    }
    let body = bytes.get(at..at + size).ok_or("the ID3 tag is longer than the file (mutagen cannot read enough data)")?;
    let unsynchronised = flags & 0x80 != 0;
    let resynced;
    let body = if unsynchronised && major < 4 {
        resynced = resync(body);
        resynced.as_deref().unwrap_or(body)
    } else {
        body
    };
    let mut frames: Frames = Vec::new();
    let mut add = |id: String, text: Vec<String>| match frames.iter_mut().find(|(f, _)| *f == id) {
        // A repeated text frame: its values that are new are added to the first one's.
        Some((_, old)) => {
            for value in text {
                if !old.contains(&value) {
                    old.push(value);
                }
            }
        }
        None => frames.push((id, text)),
    };
    let mut data = body;
    if major == 2 {
        while data.len() >= 6 {
            let (name, size) = (&data[..3], big_endian(&data[3..6]));
            if name.iter().all(|&b| b == 0) {
                break;
            }
            let frame = &data[6..(6 + size).min(data.len())];
            data = &data[(6 + size).min(data.len())..];
            if size == 0 {
                continue;
            }
            let Some(id) = v22_text_frame(name) else { continue };
            if let Some(text) = text_frame(frame, false) {
                add(id.to_string(), text);
            }
        }
        return Ok(Some(frames));
    }
    let plain_sizes = major == 4 && plain_sizes_fit_better(data);
    while data.len() >= 10 {
        let (name, raw_size, frame_flags) = (&data[..4], &data[4..8], big_endian(&data[8..10]));
        if name.iter().all(|&b| b == 0) {
            break;
        }
        let size = if major == 4 && !plain_sizes { syncsafe(raw_size) } else { big_endian(raw_size) };
        let frame = &data[10..(10 + size).min(data.len())];
        data = &data[(10 + size).min(data.len())..];
        if size == 0 {
            continue;
        }
        // Some write 2.3 frames under their 2.2 names (three letters and a NUL).
        let id = if name[3] == 0 {
            match v22_text_frame(&name[..3]) {
                Some(id) => id.to_string(),
                None => continue,
            }
        } else {
            String::from_utf8_lossy(name).into_owned()
        };
        if !TEXT_KEYS.iter().any(|(_, f, _)| *f == id) {
            continue;
        }
        let mut frame = frame.to_vec();
        if major == 4 {
            // Compression or a data length: four bytes of the length first.
            let mut length = Vec::new();
            if frame_flags & 0x0009 != 0 {
                length = frame.get(..4).unwrap_or(&frame).to_vec();
                frame = frame.get(4..).unwrap_or_default().to_vec();
            }
            if frame_flags & 0x0002 != 0 || unsynchronised {
                frame = resync(&frame).unwrap_or(frame);
            }
            // An encrypted frame is not read (mutagen keeps it aside).
            if frame_flags & 0x0004 != 0 {
                continue;
            }
            if frame_flags & 0x0008 != 0 {
                // A tagger once left the length out: the four bytes are the stream's start.
                match inflate(&frame).or_else(|| inflate(&[length, frame].concat())) {
                    Some(plain) => frame = plain,
                    None => continue,
                }
            }
        } else if frame_flags & 0x00c0 != 0 {
            // Compressed: four bytes of the length first; encrypted: not read.
            if frame.len() < 4 || frame_flags & 0x0040 != 0 {
                continue;
            }
            match inflate(&frame[4..]) {
                Some(plain) => frame = plain,
                None => continue,
            }
        }
        if let Some(text) = text_frame(&frame, major == 4) {
            add(id, text);
        }
    }
    Ok(Some(frames))
}

/// A zlib stream's data, as Python's `zlib.decompress` gives it (what follows the stream's end is
/// left); `None` where it raises (a bad header or checksum, a stream cut short).
fn inflate(data: &[u8]) -> Option<Vec<u8>> {
    let mut inflater = flate2::Decompress::new(true);
    let mut out = Vec::with_capacity(data.len() * 4 + 64);
    loop {
        let read = inflater.total_in() as usize;
        match inflater.decompress_vec(&data[read..], &mut out, flate2::FlushDecompress::Finish).ok()? {
            flate2::Status::StreamEnd => return Some(out),
            _ if out.len() == out.capacity() => out.reserve(out.capacity().max(1024)),
            // No room was wanted and the input is spent: the stream is cut short.
            _ => return None,
        }
    }
}

/// mutagen's `determine_bpi`: whether a 2.4 tag's frame sizes are plain integers (as iTunes
/// once wrote them) rather than synchsafe ones, by which reading finds more known frames, or
/// ends nearer the data's end.
fn plain_sizes_fit_better(data: &[u8]) -> bool {
    let walk = |synchsafe: bool| -> (usize, i64) {
        let (mut at, mut found) = (0usize, 0usize);
        while at + 10 < data.len() {
            let part = &data[at..at + 10];
            if part.iter().all(|&b| b == 0) {
                let left = (data.len() - at) as i64;
                return (found, -(left.rem_euclid(10)));
            }
            let size = if synchsafe { syncsafe(&part[4..8]) } else { big_endian(&part[4..8]) };
            at += 10 + size;
            if known_frame(&part[..4]) {
                found += 1;
            }
        }
        (found, at as i64 - data.len() as i64)
    };
    let ((as_synchsafe, synchsafe_past), (as_plain, plain_past)) = (walk(true), walk(false));
    as_plain > as_synchsafe || (as_plain == as_synchsafe && synchsafe_past >= 1 && plain_past <= 1)
}

/// A text frame's strings: its encoding byte, then strings each ended by the encoding's
/// terminator (the last one may not be). `None` where mutagen drops the frame as junk (an
/// unknown encoding, text that does not decode, nothing after the encoding byte).
fn text_frame(data: &[u8], v24: bool) -> Option<Vec<String>> {
    let (&encoding, mut rest) = data.split_first()?;
    if encoding > 3 || rest.is_empty() {
        return None;
    }
    let mut strings = Vec::new();
    let mut owned;
    while !rest.is_empty() {
        let (text, after) = read_string(encoding, rest)?;
        strings.push(text);
        // Before 2.4 a list of values ends where only zeros are left (padding).
        owned = if !v24 && after.iter().all(|&b| b == 0) { Vec::new() } else { after };
        rest = &owned;
    }
    Some(strings)
}

/// One string and what follows its terminator, as mutagen's `EncodedTextSpec` reads it: UTF-16
/// tried as it is, then with a byte added, then as little-endian with a byte order mark added.
fn read_string(encoding: u8, data: &[u8]) -> Option<(String, Vec<u8>)> {
    match encoding {
        0 | 3 => {
            let (text, after) = match data.iter().position(|&b| b == 0) {
                Some(i) => (&data[..i], data[i + 1..].to_vec()),
                None => (data, Vec::new()),
            };
            let text = if encoding == 0 { text.iter().map(|&b| char::from(b)).collect() } else { String::from_utf8(text.to_vec()).ok()? };
            Some((text, after))
        }
        _ => {
            let padded = [data, &[0]].concat();
            let mut tries = vec![data.to_vec(), padded.clone()];
            if encoding == 1 {
                tries.push([&[0xff, 0xfe], data].concat());
                tries.push([&[0xff, 0xfe], padded.as_slice()].concat());
            }
            tries.iter().find_map(|t| utf16_terminated(t, encoding == 2))
        }
    }
}

/// UTF-16 up to its first NUL character: big-endian (encoding 2), or by a leading byte order
/// mark (little-endian without one), as Python's incremental decoder reads it.
fn utf16_terminated(data: &[u8], big: bool) -> Option<(String, Vec<u8>)> {
    let (big, start) = match data {
        _ if big => (true, 0),
        [0xff, 0xfe, ..] => (false, 2),
        [0xfe, 0xff, ..] => (true, 2),
        _ => (false, 0),
    };
    let mut units = Vec::new();
    let mut at = start;
    while at + 1 < data.len() {
        let unit = if big { u16::from_be_bytes([data[at], data[at + 1]]) } else { u16::from_le_bytes([data[at], data[at + 1]]) };
        at += 2;
        if unit == 0 {
            return Some((String::from_utf16(&units).ok()?, data[at..].to_vec()));
        }
        units.push(unit);
    }
    // A byte left over is a truncated character: an error.
    if at != data.len() {
        return None;
    }
    Some((String::from_utf16(&units).ok()?, Vec::new()))
}

/// The frames of an ID3v1 tag in the file's last bytes, as mutagen's `find_id3v1` finds it: the
/// first `TAG` among the last 131 bytes (unless it is the one in an APEv2 tag's `APETAGEX`),
/// 124 to 128 bytes long.
fn v1_frames(bytes: &[u8]) -> Option<Frames> {
    let tail = &bytes[bytes.len().saturating_sub(131)..];
    let at = tail.windows(3).position(|w| w == b"TAG")?;
    if let Some(ape) = tail.windows(8).position(|w| w == b"APETAGEX") {
        if at == ape + 3 {
            return None;
        }
    }
    let data = &tail[at..];
    if !(124..=128).contains(&data.len()) {
        return None;
    }
    let year_len = data.len() - 124;
    // A field's text up to its first NUL, ASCII blanks stripped, read as Latin-1.
    let field = |from: usize| -> String {
        let raw = data[from..from + 30].split(|&b| b == 0).next().unwrap_or_default();
        let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
        let start = raw.iter().position(|b| !blank(b)).unwrap_or(raw.len());
        let end = raw.iter().rposition(|b| !blank(b)).map_or(start, |e| e + 1);
        raw[start..end].iter().map(|&b| char::from(b)).collect()
    };
    let mut frames = Vec::new();
    for (id, from) in [("TIT2", 3), ("TPE1", 33), ("TALB", 63)] {
        let text = field(from);
        if !text.is_empty() {
            frames.push((id.to_string(), vec![text]));
        }
    }
    // ID3v1.1: a NUL in the comment's next-to-last byte makes its last one the track.
    let comment = &data[93 + year_len..93 + year_len + 30];
    if comment[28] == 0 && comment[29] != 0 {
        frames.push(("TRCK".to_string(), vec![comment[29].to_string()]));
    }
    Some(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v24(frames: &[(&str, &[u8])]) -> Vec<u8> {
        let body: Vec<u8> = frames
            .iter()
            .flat_map(|(id, data)| {
                let n = data.len();
                let size = [(n >> 21) as u8 & 0x7f, (n >> 14) as u8 & 0x7f, (n >> 7) as u8 & 0x7f, n as u8 & 0x7f];
                [id.as_bytes(), &size, &[0, 0], data].concat()
            })
            .collect();
        let n = body.len();
        let size = [(n >> 21) as u8 & 0x7f, (n >> 14) as u8 & 0x7f, (n >> 7) as u8 & 0x7f, n as u8 & 0x7f];
        [b"ID3\x04\x00\x00".as_slice(), &size, &body, b"\xff\xfb\x90\x00"].concat()
    }

    #[test]
    fn text_frames_are_read_in_each_encoding() {
        let tag = v24(&[("TIT2", b"\x03Missing You"), ("TPE1", b"\x01\xff\xfeC\x00x\x00\x00\x00\xff\xfeY\x00"), ("TALB", b"\x00A\x00")]);
        let frames = read_tag(&tag).unwrap();
        assert_eq!(frames[0], ("TIT2".to_string(), vec!["Missing You".to_string()]));
        assert_eq!(frames[1].1, ["Cx", "Y"]);
        assert_eq!(frames[2].1, ["A"]);
        assert!(read_tag(b"\xff\xfb\x90\x00 no tag here").is_err());
    }

    #[test]
    fn unknown_keys_read_empty_and_unread_ones_are_refused() {
        assert_eq!(frame_of("Title").unwrap(), Some("TIT2"));
        assert_eq!(frame_of("no_such_key").unwrap(), None);
        assert!(frame_of("genre").is_err());
        assert!(rules_unsupported(&serde_json::json!({"date": {"method": "eq", "ref": "2020"}})).is_some());
    }
}
