//! guigym's HTTP services beyond the manager's own API, each a router built by a function that
//! tests call in-process: the store in the browser, with the fleet page and playing a task by
//! hand (`dash`), the control side of instances served as ADB devices (`devices`), the trajectory buffer trainers read (`buffer`), what it checks of the
//! images it is given (`images`), the task listing clients read (`tasks`), one attempt played for
//! a trainer's agent loop (`rollouts`), and a scripted OpenAI-compatible policy for testing a
//! harness end to end (`policy`).

pub mod buffer;
pub mod dash;
pub mod devices;
pub mod images;
pub mod policy;
pub mod rollouts;
pub mod tasks;
#[cfg(test)]
mod testing;
