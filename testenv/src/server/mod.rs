//! The server layer: the HTTPS [`listener`] ([`http1`], or [`http2`] when ALPN chose it), the
//! [`filters`] in front of the handlers (fault injection, audit IDs), [`routing`] of a path to a
//! handler (with priority and fairness's classification, [`flow_control`]), the response
//! [`body`], and the assembly of an API server with its controllers ([`new_api`]).

mod assemble;
mod body;
mod filters;
mod flow_control;
mod http1;
mod http2;
mod listener;
mod preface;
pub mod routing;
mod settings_order;

pub use assemble::new_api;
pub use listener::Server;
