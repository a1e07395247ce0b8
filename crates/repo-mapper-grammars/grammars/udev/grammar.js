/**
 * @file udev rules files (`*.rules`), written for repo-mapper.
 *
 * Node, field and token names follow the ones Aider's `udev-tags.scm` query uses:
 * a `rule` is a comma-separated list of `match` and `assignment` items, each with the
 * key keyword in field `key`, an optional `{...}` argument (`env_var`, `attribute`, ...),
 * an operator and a quoted `value` whose `content` holds `pattern`s and, for the keys that
 * expand them, `fmt_sub` (`%k`, `%E{VAR}`) and `var_sub` (`$kernel`, `$env{VAR}`) nodes.
 */

// Keys whose value expands `%x` / `$x` substitutions (values of other keys are plain text).
const SUBST = 'subst';
const PLAIN = 'plain';

// [keyword, rule of its `{...}` argument or null, value kind]. The argument of TEST and
// RUN is optional, that of the other keys required.
const MATCH_ONLY = [
  ['ACTION', null, PLAIN],
  ['DEVPATH', null, PLAIN],
  ['KERNEL', null, PLAIN],
  ['KERNELS', null, PLAIN],
  ['SUBSYSTEM', null, PLAIN],
  ['SUBSYSTEMS', null, PLAIN],
  ['DRIVER', null, PLAIN],
  ['DRIVERS', null, PLAIN],
  ['ATTRS', 'attribute', PLAIN],
  ['CONST', 'system_const', PLAIN],
  ['TAGS', null, PLAIN],
  ['TEST', 'octal', PLAIN],
  ['RESULT', null, PLAIN],
];
const MATCH_OR_ASSIGN = [
  ['NAME', null, SUBST],
  ['SYMLINK', null, SUBST],
  ['ATTR', 'attribute', PLAIN],
  ['SYSCTL', 'kernel_param', PLAIN],
  ['ENV', 'env_var', SUBST],
  ['TAG', null, PLAIN],
];
const ASSIGN_ONLY = [
  ['OWNER', null, SUBST],
  ['GROUP', null, SUBST],
  ['MODE', null, SUBST],
  ['SECLABEL', 'seclabel', SUBST],
  ['RUN', 'run_type', SUBST],
  ['LABEL', null, PLAIN],
  ['GOTO', null, PLAIN],
  ['OPTIONS', null, PLAIN],
];

// Builds the alternatives of one item kind from the key table rows.
function items($, rows, op) {
  return rows.map(([key, arg, kind]) => {
    const parts = [field('key', key)];
    if (arg === 'octal') {
      // TEST takes an optional permission mask: TEST{0644}=="..."
      parts.push(optional(seq(token.immediate('{'), $.octal, token.immediate('}'))));
    } else if (arg === 'run_type') {
      parts.push(optional(seq(token.immediate('{'), $.run_type, token.immediate('}'))));
    } else if (arg) {
      parts.push(token.immediate('{'), $[arg], token.immediate('}'));
    }
    parts.push(op, kind === SUBST ? alias($._subst_value, $.value) : $.value);
    return seq(...parts);
  });
}

// "..." or e"..." (with C escapes); `content` and `cContent` are the rules for the inside.
function quoted($, content, cContent) {
  return choice(
    seq('"', optional(alias(content, $.content)), token.immediate('"')),
    seq('e', token.immediate('"'), optional(alias(cContent, $.content)), token.immediate('"')),
  );
}

// Argument names inside `{...}`.
const NAME = /[^{}\s"]+/;

module.exports = grammar({
  name: 'udev',

  extras: $ => [/[ \t]/, $.linebreak],

  rules: {
    rules: $ => repeat(choice($.rule, $.comment, $._eol)),

    rule: $ => seq($._item, repeat(seq(',', $._item))),

    _item: $ => choice($.match, $.assignment),

    match: $ =>
      choice(
        ...items($, MATCH_ONLY, $.match_op),
        ...items($, MATCH_OR_ASSIGN, $.match_op),
        // PROGRAM runs a program and matches its result, whatever the operator.
        seq(field('key', 'PROGRAM'), choice($.match_op, $.assignment_op), alias($._subst_value, $.value)),
      ),

    assignment: $ =>
      choice(
        ...items($, MATCH_OR_ASSIGN, $.assignment_op),
        ...items($, ASSIGN_ONLY, $.assignment_op),
        // IMPORT{type} loads variables; it is an assignment whatever the operator.
        seq(
          field('key', 'IMPORT'),
          token.immediate('{'),
          $.import_type,
          token.immediate('}'),
          choice($.match_op, $.assignment_op),
          $.value,
        ),
      ),

    match_op: _ => token(choice('==', '!=')),
    assignment_op: _ => token(choice('=', '+=', '-=', ':=')),

    env_var: _ => token.immediate(NAME),
    attribute: _ => token.immediate(NAME),
    kernel_param: _ => token.immediate(NAME),
    system_const: _ => token.immediate(NAME),
    seclabel: _ => token.immediate(NAME),
    run_type: _ => token.immediate(NAME),
    import_type: _ => token.immediate(NAME),
    octal: _ => token.immediate(/[0-7]+/),
    number: _ => token.immediate(/[0-9]+/),

    // A value: "..." or, with C escapes, e"...". Its `%` and `$` are plain characters.
    value: $ => quoted($, $.content, $._c_content),
    content: $ => repeat1(choice(token.immediate(/([^"\\*?|\[\r\n]|\\[^\r\n])+/), $.pattern)),
    _c_content: $ => repeat1(choice(token.immediate(/[^"\\*?|\[\r\n]+/), $.c_escape, $.pattern)),

    // A value that expands substitutions (aliased to `value` / `content`).
    _subst_value: $ => quoted($, $._subst_content, $._subst_c_content),
    _subst_content: $ =>
      repeat1(choice(token.immediate(/([^"\\*?|\[%$\r\n]|\\[^\r\n])+/), $._lone_sigil, $.pattern, $.fmt_sub, $.var_sub)),
    _subst_c_content: $ =>
      repeat1(
        choice(token.immediate(/[^"\\*?|\[%$\r\n]+/), $._lone_sigil, $.c_escape, $.pattern, $.fmt_sub, $.var_sub),
      ),
    // A `%` or `$` that starts no known substitution is text.
    _lone_sigil: _ => token.immediate(prec(-1, /[%$]/)),

    c_escape: _ => token.immediate(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|[^\r\n])/),

    // Shell-style glob characters and alternatives in match values.
    pattern: _ => choice(...['*', '?', '|', /\[[^\]"\r\n]*\]/].map(p => token.immediate(p))),

    fmt_sub: $ =>
      choice(
        ...['%k', '%n', '%p', '%b', '%M', '%m', '%P', '%r', '%S', '%N', '%%'].map(s => token.immediate(s)),
        seq(token.immediate('%E'), token.immediate('{'), $.env_var, token.immediate('}')),
        // `%s{attr}`; a bare `%s` (as in `printf %s`) is accepted too.
        seq(token.immediate('%s'), optional(seq($._open_brace, $.attribute, token.immediate('}')))),
        seq(token.immediate('%c'), optional($._result_index)),
      ),

    var_sub: $ =>
      choice(
        ...[
          '$kernel', '$number', '$devpath', '$id', '$driver', '$major', '$minor', '$parent',
          '$name', '$links', '$root', '$sys', '$devnode', '$$',
        ].map(s => token.immediate(s)),
        seq(token.immediate('$env'), token.immediate('{'), $.env_var, token.immediate('}')),
        seq(token.immediate('$attr'), token.immediate('{'), $.attribute, token.immediate('}')),
        seq(token.immediate('$result'), optional($._result_index)),
      ),

    // `{N}` or `{N+}`: part N (and the rest) of the PROGRAM result.
    _result_index: $ => seq($._open_brace, $.number, optional(token.immediate('+')), token.immediate('}')),
    // A `{` after an optional-argument substitution; it outranks the text token, so that
    // `%c{1}` is not read as `%c` followed by the text `{1}`.
    _open_brace: _ => alias(token.immediate(prec(1, '{')), '{'),

    linebreak: _ => /\\\r?\n/,
    comment: _ => /#[^\r\n]*/,
    _eol: _ => /\r?\n/,
  },
});
