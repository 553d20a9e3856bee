// Portions derived from Ajv (MIT, https://github.com/ajv-validator/ajv), as upstream notes.

const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const TIME = /^(\d\d):(\d\d):(\d\d)(\.\d+)?(z|([+-])(\d\d):(\d\d))?$/i;
const HOSTNAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*$/i;
// uri-template: https://tools.ietf.org/html/rfc6570
const URITEMPLATE =
  /^(?:(?:[^\x00-\x20\x7f"<>%\\^`{|}]|%[0-9a-f]{2})|\{[+#./;?&=,!@|]?(?:[a-z0-9_]|%[0-9a-f]{2})+(?:\.(?:[a-z0-9_]|%[0-9a-f]{2})+)*(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+(?:\.(?:[a-z0-9_]|%[0-9a-f]{2})+)*(?::[1-9][0-9]{0,3}|\*)?)*\})*$/i;
// For the source: https://gist.github.com/dperini/729294
// For test cases: https://mathiasbynens.be/demo/url-regex
const UUID = /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;
const JSON_POINTER = /^(?:\/(?:[^~/]|~0|~1)*)*$/;
const JSON_POINTER_URI_FRAGMENT =
  /^#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*$/i;
const RELATIVE_JSON_POINTER =
  /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/;

const EMAIL_ADDRESS =
  /^("(?:[\x20-\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"|[a-z0-9.!#$%&'*+/=?^_`{|}~-]+)@(.+)$/i;

const EMAIL = (input: string) => {
  const matches = input.match(EMAIL_ADDRESS);
  if (!matches) return false;

  const name = matches[1];
  const host = matches[2];
  if (!name || !host || name.length > 64 || host.length > 253) return false;

  if (
    name[0] !== '"' &&
    (name[0] === '.' || name.endsWith('.') || name.includes('..'))
  ) {
    return false;
  }

  if (host.startsWith('[') && host.endsWith(']')) {
    const address = host.slice(1, -1);
    if (/^ipv6:/i.test(address)) return IPV6.test(address.slice(5));
    return IPV4.test(address);
  }

  return HOSTNAME.test(host);
};

// optimized https://www.safaribooksonline.com/library/view/regular-expressions-cookbook/9780596802837/ch07s16.html
const IPV4 =
  /^(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)$/;
// optimized http://stackoverflow.com/questions/53497/regular-expression-that-matches-valid-ipv6-addresses
const IPV6 =
  /^((([0-9a-f]{1,4}:){7}([0-9a-f]{1,4}|:))|(([0-9a-f]{1,4}:){6}(:[0-9a-f]{1,4}|((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){5}(((:[0-9a-f]{1,4}){1,2})|:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){4}(((:[0-9a-f]{1,4}){1,3})|((:[0-9a-f]{1,4})?:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){3}(((:[0-9a-f]{1,4}){1,4})|((:[0-9a-f]{1,4}){0,2}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){2}(((:[0-9a-f]{1,4}){1,5})|((:[0-9a-f]{1,4}){0,3}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){1}(((:[0-9a-f]{1,4}){1,6})|((:[0-9a-f]{1,4}){0,4}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(:(((:[0-9a-f]{1,4}){1,7})|((:[0-9a-f]{1,4}){0,5}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:)))$/i;

// RFC 3339 Appendix A duration ABNF.
const DURATION = (input: string) =>
  /^P(?:\d+W|(?:(?:\d+Y(?:\d+M(?:\d+D)?)?|\d+M(?:\d+D)?|\d+D)(?:T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S))?|T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)))$/.test(
    input
  );

function bind(r: RegExp) {
  return r.test.bind(r);
}

export const format: Record<string, (s: string) => boolean> = {
  date,
  time: time.bind(undefined, true),
  'date-time': date_time,
  duration: DURATION,
  uri,
  'uri-reference': (str: string) => uriReference(str, false),
  'uri-template': bind(URITEMPLATE),
  url,
  email: EMAIL,
  hostname: (str: string) => str.length <= 253 && HOSTNAME.test(str),
  ipv4: (str: string) => str.length <= 15 && IPV4.test(str),
  ipv6: (str: string) => str.length <= 45 && IPV6.test(str),
  regex: regex,
  uuid: bind(UUID),
  'json-pointer': bind(JSON_POINTER),
  'json-pointer-uri-fragment': bind(JSON_POINTER_URI_FRAGMENT),
  'relative-json-pointer': bind(RELATIVE_JSON_POINTER)
};

function isLeapYear(year: number) {
  // https://tools.ietf.org/html/rfc3339#appendix-C
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function date(str: string) {
  // full-date from http://tools.ietf.org/html/rfc3339#section-5.6
  const matches = str.match(DATE);
  if (!matches) return false;

  const yearPart = matches[1];
  const monthPart = matches[2];
  const dayPart = matches[3];
  if (!yearPart || !monthPart || !dayPart) return false;

  const year = +yearPart;
  const month = +monthPart;
  const day = +dayPart;
  const maxDay = month == 2 && isLeapYear(year) ? 29 : DAYS[month];

  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    maxDay !== undefined &&
    day <= maxDay
  );
}

function time(full: boolean, str: string) {
  const matches = str.match(TIME);
  if (!matches) return false;

  const hourPart = matches[1];
  const minutePart = matches[2];
  const secondPart = matches[3];
  if (!hourPart || !minutePart || !secondPart) return false;

  const hour = +hourPart;
  const minute = +minutePart;
  const second = +secondPart;
  const timeZone = matches[5];
  const offsetSign = matches[6];
  const offsetHour = +(matches[7] ?? 0);
  const offsetMinute = +(matches[8] ?? 0);
  if (
    hour > 23 ||
    minute > 59 ||
    second > 60 ||
    offsetHour > 23 ||
    offsetMinute > 59 ||
    (full && timeZone === undefined)
  ) {
    return false;
  }

  if (second < 60) return true;

  const offsetDirection = offsetSign === '+' ? 1 : offsetSign === '-' ? -1 : 0;
  const utcMinute =
    (hour * 60 +
      minute -
      offsetDirection * (offsetHour * 60 + offsetMinute) +
      24 * 60) %
    (24 * 60);
  return utcMinute === 23 * 60 + 59;
}

const DATE_TIME_SEPARATOR = /t|\s/i;
function date_time(str: string) {
  // http://tools.ietf.org/html/rfc3339#section-5.6
  const [datePart, timePart, extra] = str.split(DATE_TIME_SEPARATOR);
  return (
    datePart !== undefined &&
    timePart !== undefined &&
    extra === undefined &&
    date(datePart) &&
    time(true, timePart)
  );
}


// ---- toolshed patch: linear-time checks for client strings ----
// Upstream matched URIs with one large regular expression whose nested, overlapping
// repetitions backtrack super-linearly, and `url` with one that backtracks exponentially
// ("http://" and a few thousand letters took minutes). Here each part of a URI (RFC 3986)
// is split off by index and checked by a regex that repeats one character class (or a
// %-escape, which the class cannot start): linear. IPv4, IPv6 and host names have a
// bounded length, checked before their regexes run.

const PATH = /^(?:[a-z0-9\-._~!$&'()*+,;=:@/]|%[0-9a-f]{2})*$/i;
const QUERY_OR_FRAGMENT = /^(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*$/i;
const USERINFO = /^(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*$/i;
const REG_NAME = /^(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*$/i;
const PORT = /^\d*$/;
const SCHEME = /^[a-z][a-z0-9+\-.]*$/i;
const IP_FUTURE = /^v[0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+$/i;

function uri(str: string): boolean {
  return uriReference(str, true);
}

/** An RFC 3986 URI-reference (or, with `schemeRequired`, a URI). */
function uriReference(str: string, schemeRequired: boolean): boolean {
  let rest = str;
  const hash = rest.indexOf('#');
  if (hash !== -1) {
    if (!QUERY_OR_FRAGMENT.test(rest.slice(hash + 1))) return false;
    rest = rest.slice(0, hash);
  }
  const question = rest.indexOf('?');
  if (question !== -1) {
    if (!QUERY_OR_FRAGMENT.test(rest.slice(question + 1))) return false;
    rest = rest.slice(0, question);
  }
  const colon = rest.indexOf(':');
  const slash = rest.indexOf('/');
  const colonFirst = colon !== -1 && (slash === -1 || colon < slash);
  if (colonFirst && SCHEME.test(rest.slice(0, colon))) {
    rest = rest.slice(colon + 1);
  } else if (schemeRequired || colonFirst) {
    // A relative reference's first segment may not hold ":" (RFC 3986, 4.2).
    return false;
  }
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    if (!authority(end === -1 ? rest.slice(2) : rest.slice(2, end))) return false;
    rest = end === -1 ? '' : rest.slice(end);
  }
  return PATH.test(rest);
}

function authority(text: string): boolean {
  const at = text.lastIndexOf('@');
  if (at !== -1 && !USERINFO.test(text.slice(0, at))) return false;
  let hostPort = text.slice(at + 1);
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close === -1) return false;
    const literal = hostPort.slice(1, close);
    if (!((literal.length <= 45 && IPV6.test(literal)) || IP_FUTURE.test(literal))) {
      return false;
    }
    hostPort = hostPort.slice(close + 1);
    return hostPort === '' || (hostPort[0] === ':' && PORT.test(hostPort.slice(1)));
  }
  const portColon = hostPort.lastIndexOf(':');
  const host = portColon === -1 ? hostPort : hostPort.slice(0, portColon);
  return REG_NAME.test(host) && (portColon === -1 || PORT.test(hostPort.slice(portColon + 1)));
}

const URL_SCHEMES = new Set(['http:', 'https:', 'ftp:']);
const WHITESPACE = /\s/;

/** An http(s) or ftp URL with a host, as the WHATWG URL parser reads it. */
function url(str: string): boolean {
  if (WHITESPACE.test(str)) return false;
  let parsed: URL;
  try {
    parsed = new URL(str);
  } catch {
    return false;
  }
  return URL_SCHEMES.has(parsed.protocol) && parsed.hostname !== '';
}

// ---- end of toolshed patch ----

const Z_ANCHOR = /[^\\]\\Z/;
function regex(str: string) {
  if (Z_ANCHOR.test(str)) return false;
  try {
    new RegExp(str, 'u');
    return true;
  } catch (e) {
    return false;
  }
}
