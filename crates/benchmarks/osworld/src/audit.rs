//! The audit's cases tasks on the desktop share (see `rollout::audit`): a change made where the
//! task does not look, a file written from a terminal the agent opens by its key.

use guigym_core::{Action, AuditCase, TaskSpec, TerminateStatus};

/// A side effect elsewhere: after the walkthrough, a terminal opened by Ctrl+Alt+T (the window
/// manager's key) writes a file the task does not name.
pub fn cases(task: &TaskSpec) -> Vec<AuditCase> {
    let (body, status) = task.walkthrough_body();
    let elsewhere = vec![
        Action::Key { keys: vec!["ctrl".into(), "alt".into(), "t".into()] },
        Action::Wait { ms: 1500 },
        // A terminal, surely: where none opened, the click is refused and the case inert,
        // rather than the command typed into the task's document.
        Action::click_element("xterm"),
        Action::Type { text: "echo audit > ~/Documents/audit-note.txt\n".into(), element: None, clear: false },
        Action::Wait { ms: 300 },
    ];
    let mut actions = [body, elsewhere].concat();
    actions.push(Action::Terminate { status: status.unwrap_or(TerminateStatus::Success) });
    vec![AuditCase { rule: "side_effect_elsewhere", must_pass: false, actions }]
}
