/**
 * @file Chatito DSL (`*.chatito`), written for repo-mapper.
 *
 * Node and field names follow the ones Aider's `chatito-tags.scm` query uses: top-level
 * `intent_def` (`%[name]`), `slot_def` (`@[name]`) and `alias_def` (`~[name]`) headers,
 * each followed by a body of indented sentences made of `word`s, `slot_ref`s (`@[name]`)
 * and `alias_ref`s (`~[name]`). Names are `alias` tokens, aliased to `intent` / `slot`.
 *
 * Whitespace is explicit, as indentation matters: a body line starts with `_indent`,
 * its items are separated by `_space` and it ends with `_eol`. Blank lines followed by an
 * indented line are part of its `_indent`, so they stay inside the body; other blank lines
 * stand between top-level items and end the body before them.
 */

module.exports = grammar({
  name: 'chatito',

  // No extras: whitespace is explicit.
  extras: _ => [],

  rules: {
    source: $ => repeat(choice($.intent_def, $.slot_def, $.alias_def, $.import, $.comment, $._blank_lines)),

    // A body is optional; comment lines right after a header belong to its body.
    intent_def: $ =>
      prec.right(seq('%[', alias($.alias, $.intent), ']', $._header_rest, optional($.intent_body))),
    slot_def: $ =>
      prec.right(
        seq('@[', alias($.alias, $.slot), optional($.variation), ']', $._header_rest, optional($.slot_body)),
      ),
    alias_def: $ => prec.right(seq('~[', $.alias, ']', $._header_rest, optional($.alias_body))),

    _header_rest: $ => seq(optional(seq(optional($._space), $.arguments)), $._eol),

    // A comment at the start of a line inside a body belongs to that body.
    intent_body: $ => prec.right(repeat1(choice($._sentence_line, $.comment))),
    slot_body: $ => prec.right(repeat1(choice($._sentence_line, $.comment))),
    alias_body: $ => prec.right(repeat1(choice($._sentence_line, $.comment))),

    _sentence_line: $ =>
      seq(
        $._indent,
        optional($.probability),
        repeat1(choice($.word, $.slot_ref, $.alias_ref, $._space)),
        $._eol,
      ),

    slot_ref: $ => seq('@[', alias($.alias, $.slot), optional($.variation), optional('?'), ']'),
    alias_ref: $ => seq('~[', $.alias, optional('?'), ']'),

    // The name inside brackets.
    alias: _ => /[^\]?#\r\n]+/,
    variation: _ => seq('#', /[^\]?\r\n]+/),

    // `*[20%]` or `*[20]` at the start of a sentence: how often it is generated.
    probability: $ => seq(token(prec(1, '*[')), $.number, optional('%'), ']'),
    number: _ => /\d+(\.\d+)?/,

    // Any run of non-blank characters that does not start a `@[` or `~[` reference.
    word: _ => /([^\s@~]|[@~][^\s@~\[])+|[@~]/,

    import: $ => seq('import', $._space, $.file, $._eol),
    file: _ => /[^\s]([^\r\n]*[^\s])?/,

    // Comments start a line; the line's end is part of them.
    comment: $ => seq(/(#|\/\/)[^\r\n]*/, $._eol),

    // Entity arguments: ('key': 'value', "key": "value")
    arguments: $ =>
      seq(
        '(',
        optional($._space),
        $.argument,
        repeat(seq(optional($._space), ',', optional($._space), $.argument)),
        optional($._space),
        ')',
      ),
    argument: $ =>
      seq(field('key', $.string), optional($._space), field('eq', ':'), optional($._space), field('value', $.string)),

    string: $ =>
      choice(
        seq(
          field('quote', '"'),
          repeat(field('content', choice(token.immediate(prec(1, /[^"\\\r\n]+/)), $.escape))),
          field('quote', token.immediate('"')),
        ),
        seq(
          field('quote', "'"),
          repeat(field('content', choice(token.immediate(prec(1, /[^'\\\r\n]+/)), $.escape))),
          field('quote', token.immediate("'")),
        ),
      ),
    escape: _ => token.immediate(/\\./),

    _indent: _ => /([ \t]*\r?\n)*[ \t]+/,
    _space: _ => /[ \t]+/,
    _eol: _ => /[ \t]*\r?\n/,
    _blank_lines: _ => /([ \t]*\r?\n)+/,
  },
});
