//! ADB's transport messages: a 24-byte header (command, two arguments, payload length,
//! payload checksum, the command's complement as a magic) and a payload. The same framing
//! runs over TCP (`adb connect host:port`) and USB.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Opens a connection: version, largest payload, and the system identity ("device::…").
pub const CNXN: u32 = u32::from_le_bytes(*b"CNXN");
/// Authentication: a token to sign, a signature, or a public key.
pub const AUTH: u32 = u32::from_le_bytes(*b"AUTH");
/// Opens a stream to a service ("shell:…", "sync:").
pub const OPEN: u32 = u32::from_le_bytes(*b"OPEN");
/// A stream is open, or a write was taken (one write in flight per stream).
pub const OKAY: u32 = u32::from_le_bytes(*b"OKAY");
/// Data on a stream.
pub const WRTE: u32 = u32::from_le_bytes(*b"WRTE");
/// A stream is closed (or could not be opened).
pub const CLSE: u32 = u32::from_le_bytes(*b"CLSE");
/// A request to switch to TLS (adb 30 and later); never sent by this device.
pub const STLS: u32 = u32::from_le_bytes(*b"STLS");

/// The protocol version that no longer checks payload checksums.
pub const VERSION: u32 = 0x0100_0001;
/// The largest payload this side sends or takes.
pub const MAX_PAYLOAD: u32 = 256 * 1024;

/// `AUTH` argument: a token for the other side to sign.
pub const AUTH_TOKEN: u32 = 1;
/// `AUTH` argument: the token, signed.
pub const AUTH_SIGNATURE: u32 = 2;
/// `AUTH` argument: a public key, offered when no signature was accepted.
pub const AUTH_RSAPUBLICKEY: u32 = 3;

#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
    #[error("bad message header: magic {magic:#x} does not match command {command:#x}")]
    BadMagic { command: u32, magic: u32 },
    #[error("message payload of {0} bytes is over the {MAX_PAYLOAD}-byte limit")]
    TooLarge(u32),
}

/// One message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub command: u32,
    pub arg0: u32,
    pub arg1: u32,
    pub payload: Vec<u8>,
}

impl Message {
    pub fn new(command: u32, arg0: u32, arg1: u32, payload: impl Into<Vec<u8>>) -> Message {
        Message { command, arg0, arg1, payload: payload.into() }
    }

    /// The command's four letters, for logs and errors.
    pub fn name(&self) -> String {
        String::from_utf8_lossy(&self.command.to_le_bytes()).into_owned()
    }

    /// The header and payload as sent. The checksum (the payload's byte sum) is still
    /// filled in for peers older than `VERSION`.
    pub fn encode(&self) -> Vec<u8> {
        let checksum = self.payload.iter().fold(0u32, |sum, b| sum.wrapping_add(u32::from(*b)));
        let mut out = Vec::with_capacity(24 + self.payload.len());
        for word in [self.command, self.arg0, self.arg1, self.payload.len() as u32, checksum, self.command ^ 0xffff_ffff] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&self.payload);
        out
    }

    pub async fn write(&self, to: &mut (impl AsyncWrite + Unpin)) -> Result<(), MessageError> {
        to.write_all(&self.encode()).await?;
        Ok(())
    }

    /// Reads one message; a payload over `MAX_PAYLOAD` (four times over, for peers that
    /// announced a larger one) or a header whose magic is wrong is an error.
    pub async fn read(from: &mut (impl AsyncRead + Unpin)) -> Result<Message, MessageError> {
        let mut header = [0u8; 24];
        from.read_exact(&mut header).await?;
        let word = |i: usize| u32::from_le_bytes([header[i * 4], header[i * 4 + 1], header[i * 4 + 2], header[i * 4 + 3]]);
        let (command, arg0, arg1, length, magic) = (word(0), word(1), word(2), word(3), word(5));
        if magic != command ^ 0xffff_ffff {
            return Err(MessageError::BadMagic { command, magic });
        }
        if length > 4 * MAX_PAYLOAD {
            return Err(MessageError::TooLarge(length));
        }
        let mut payload = vec![0u8; length as usize];
        from.read_exact(&mut payload).await?;
        Ok(Message { command, arg0, arg1, payload })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_message_reads_back_as_written_and_a_bad_header_is_refused() {
        let sent = Message::new(OPEN, 7, 0, b"shell:echo hi\0".to_vec());
        let bytes = sent.encode();
        assert_eq!(&bytes[..4], b"OPEN");
        assert_eq!(u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]), 14);
        assert_eq!(Message::read(&mut &bytes[..]).await.unwrap(), sent);
        let mut bad = bytes.clone();
        bad[20] ^= 1;
        assert!(matches!(Message::read(&mut &bad[..]).await, Err(MessageError::BadMagic { .. })));
        let mut huge = Message::new(WRTE, 1, 1, Vec::new()).encode();
        huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(Message::read(&mut &huge[..]).await, Err(MessageError::TooLarge(_))));
        assert!(matches!(Message::read(&mut &bytes[..10]).await, Err(MessageError::Io(_))));
    }
}
