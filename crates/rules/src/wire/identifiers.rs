//! JavaScript's string rules the programmatic tools rely on: sandbox identifiers of tool names
//! (`normalizeToPythonIdentifier` / `normalizeToBashIdentifier`), the top-level-await wrapper of 3.9's
//! plain `/exec` fallback, and ECMAScript whitespace.

pub(super) const PYTHON_KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

pub(super) const BASH_RESERVED: [&str; 23] = [
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done",
    "in", "function", "select", "time", "coproc", "declare", "typeset", "local", "readonly",
    "export", "unset",
];

/// `normalizeToPythonIdentifier`.
pub(super) fn normalize_to_python_identifier(name: &str) -> String {
    normalize_identifier(name, false, &PYTHON_KEYWORDS)
}

/// `normalizeToBashIdentifier` (which also maps `.` to `_`).
pub(super) fn normalize_to_bash_identifier(name: &str) -> String {
    normalize_identifier(name, true, &BASH_RESERVED)
}

pub(super) fn normalize_identifier(
    name: &str,
    dot_is_separator: bool,
    reserved: &[&str],
) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c == '-' || is_js_whitespace(c) || (dot_is_separator && c == '.') {
            out.push('_');
        } else if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if reserved.contains(&out.as_str()) {
        out.push_str("_tool");
    }
    out
}

/// The wrapper 3.9 puts around Python sent to plain `/exec`, so that top-level `await` works there too.
pub(super) fn wrap_python_for_plain_execution(code: &str) -> String {
    let body: Vec<String> = code
        .split('\n')
        .map(|line| {
            if js_trim(line).is_empty() {
                String::new()
            } else {
                format!("    {line}")
            }
        })
        .collect();
    format!(
        "async def __user_main__():\n    \"\"\"Auto-generated wrapper for user code to support top-level await\"\"\"\n{}\n\nif __name__ == \"__main__\":\n    import asyncio\n    asyncio.run(__user_main__())\n",
        body.join("\n")
    )
}

/// JavaScript's whitespace (`\s`, and what `String.prototype.trim` removes): the ECMAScript WhiteSpace
/// and LineTerminator sets, which differ from Rust's `char::is_whitespace` (U+FEFF yes, U+0085 no).
pub(super) fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

pub(super) fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}
