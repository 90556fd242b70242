//! Free text as the API accepts it (issue 26 item 7): bounded, not only white space, and
//! without control characters — a NUL would fail in PostgreSQL (SQLSTATE 22021, a 500)
//! and BEL, ESC or a C1 control would be stored and shown to the next reader. Newline,
//! carriage return and tab are allowed only in fields that are edited as several lines
//! (a `<textarea>` in the SPA). One rule for the API and the SPA.

/// How many lines a field may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// A title, a name, a label: no control character at all.
    One,
    /// A notice text, a description, a note, the content: `\n`, `\r` and `\t` allowed.
    Many,
}

/// Whether `c` may appear in a field of this kind.
pub fn allowed_char(c: char, lines: Lines) -> bool {
    !c.is_control() || (lines == Lines::Many && matches!(c, '\n' | '\r' | '\t'))
}

/// Free text of 1..=`max` characters, not only white space, with only the characters
/// [`allowed_char`] lets through.
pub fn acceptable(text: &str, max: usize, lines: Lines) -> bool {
    let len = text.chars().count();
    len > 0 && len <= max && !text.trim().is_empty() && text.chars().all(|c| allowed_char(c, lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_refused_and_line_breaks_only_where_lines_are() {
        for bad in ["a\0b", "bell\u{7}", "esc\u{1b}[31m", "del\u{7f}", "c1\u{85}", "\u{9b}x"] {
            assert!(!acceptable(bad, 100, Lines::One), "{bad:?}");
            assert!(!acceptable(bad, 100, Lines::Many), "{bad:?}");
        }
        for text in ["two\nlines", "tab\there", "crlf\r\nend"] {
            assert!(!acceptable(text, 100, Lines::One), "{text:?}");
            assert!(acceptable(text, 100, Lines::Many), "{text:?}");
        }
        assert!(acceptable("Ünïcødé, emoji 🎉 and spaces", 100, Lines::One));
        assert!(!acceptable("   ", 100, Lines::Many));
        assert!(!acceptable("", 100, Lines::One));
        assert!(!acceptable("toolong", 6, Lines::One));
        assert!(acceptable("🎉🎉🎉", 3, Lines::One), "characters, not bytes");
    }
}
