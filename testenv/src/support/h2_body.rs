//! An HTTP/2 stream's body read whole, for both ends the server speaks HTTP/2 on: the requests
//! it serves and the answers of the webhooks it calls.

use bytes::{Bytes, BytesMut};
use h2::RecvStream;

/// The whole body of `stream`, each chunk handed back to the connection's flow control as it
/// is read (so a sender held by the window goes on); the error's text when the stream fails.
pub async fn read_whole(mut stream: RecvStream) -> Result<Bytes, String> {
    let mut bytes = BytesMut::new();
    while let Some(chunk) = stream.data().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        let _ = stream.flow_control().release_capacity(chunk.len());
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes.freeze())
}
