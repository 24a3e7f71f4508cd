//! guigym's HTTP services beyond the manager's own API, each a router built by a function that
//! tests call in-process: the trajectory buffer trainers read (`buffer`), and what it checks of
//! the images it is given (`images`).

pub mod buffer;
pub mod images;
