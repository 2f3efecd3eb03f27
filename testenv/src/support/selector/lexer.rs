//! The tokens of a label selector, as apimachinery's selector lexer reads them: identifiers
//! run until a blank or one of `=!(),<>`; `in` and `notin` are keywords where an operator is
//! expected.

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// End of the input.
    End,
    /// `)`
    ClosePar,
    /// `,`
    Comma,
    /// `!`
    Not,
    /// `==`
    DoubleEquals,
    /// `=`
    Equals,
    /// `>`
    Greater,
    /// `<`
    Less,
    /// `!=`
    NotEquals,
    /// `(`
    OpenPar,
    /// Anything else, `in` and `notin` included (the parser decides).
    Identifier(String),
}

impl Token {
    /// The text the real parser quotes in its errors.
    pub fn literal(&self) -> String {
        match self {
            Token::End => String::new(),
            Token::ClosePar => ")".into(),
            Token::Comma => ",".into(),
            Token::Not => "!".into(),
            Token::DoubleEquals => "==".into(),
            Token::Equals => "=".into(),
            Token::Greater => ">".into(),
            Token::Less => "<".into(),
            Token::NotEquals => "!=".into(),
            Token::OpenPar => "(".into(),
            Token::Identifier(s) => s.clone(),
        }
    }
}

fn special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

/// Splits `input` into tokens, ending with [`Token::End`].
pub fn tokens(input: &str) -> Vec<Token> {
    let chars: Vec<char> = input.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if special(c) {
            let next = chars.get(i + 1).copied();
            let (tok, len) = match (c, next) {
                ('=', Some('=')) => (Token::DoubleEquals, 2),
                ('!', Some('=')) => (Token::NotEquals, 2),
                ('=', _) => (Token::Equals, 1),
                ('!', _) => (Token::Not, 1),
                ('(', _) => (Token::OpenPar, 1),
                (')', _) => (Token::ClosePar, 1),
                (',', _) => (Token::Comma, 1),
                ('>', _) => (Token::Greater, 1),
                _ => (Token::Less, 1),
            };
            out.push(tok);
            i += len;
            continue;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && !special(chars[i]) {
            i += 1;
        }
        out.push(Token::Identifier(chars[start..i].iter().collect()));
    }
    out.push(Token::End);
    out
}
