"""AWS Signature Version 4 for S3, written from AWS's documentation ("Signature Calculations
for the Authorization Header", "Authenticating Requests: Using Query Parameters") with the
standard library only. The remote-reading tests use it to check the signatures libcurl makes
for h5feed (an implementation independent of this one), to upload test files, and to make
pre-signed URLs."""
import datetime
import hashlib
import hmac
import urllib.parse

ALGORITHM = "AWS4-HMAC-SHA256"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def _hmac(key, text):
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def signing_key(secret, date, region, service="s3"):
    return _hmac(_hmac(_hmac(_hmac(("AWS4" + secret).encode(), date), region), service),
                 "aws4_request")


def _canonical_query(query, leave_out=()):
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    return "&".join(f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}"
                    for k, v in sorted(pairs) if k not in leave_out)


def _canonical_request(method, path, query, headers, signed, payload_hash, leave_out=()):
    lines = [method, path or "/", _canonical_query(query, leave_out)]
    lines += [f"{name}:{' '.join(str(headers[name]).split())}" for name in signed]
    return "\n".join(lines + ["", ";".join(signed), payload_hash])


def _string_to_sign(stamp, scope, canonical):
    return "\n".join([ALGORITHM, stamp, scope,
                      hashlib.sha256(canonical.encode()).hexdigest()])


def sign(method, url, key, secret, region, payload_hash=EMPTY_SHA256, now=None):
    """The headers that sign a request to `url` (Host, x-amz-date, x-amz-content-sha256,
    Authorization)."""
    now = now or datetime.datetime.utcnow()
    stamp, date = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    parts = urllib.parse.urlsplit(url)
    headers = {"host": parts.netloc, "x-amz-content-sha256": payload_hash, "x-amz-date": stamp}
    signed = sorted(headers)
    scope = f"{date}/{region}/s3/aws4_request"
    canonical = _canonical_request(method, parts.path, parts.query, headers, signed, payload_hash)
    signature = hmac.new(signing_key(secret, date, region),
                         _string_to_sign(stamp, scope, canonical).encode(),
                         hashlib.sha256).hexdigest()
    headers["authorization"] = (f"{ALGORITHM} Credential={key}/{scope}, "
                                f"SignedHeaders={';'.join(signed)}, Signature={signature}")
    return headers


def presign(url, key, secret, region, expires=3600, now=None):
    """`url` with the query that lets anyone GET it for `expires` seconds."""
    now = now or datetime.datetime.utcnow()
    stamp, date = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    parts = urllib.parse.urlsplit(url)
    scope = f"{date}/{region}/s3/aws4_request"
    query = urllib.parse.urlencode({
        "X-Amz-Algorithm": ALGORITHM, "X-Amz-Credential": f"{key}/{scope}", "X-Amz-Date": stamp,
        "X-Amz-Expires": str(expires), "X-Amz-SignedHeaders": "host"})
    canonical = _canonical_request("GET", parts.path, query, {"host": parts.netloc}, ["host"],
                                   "UNSIGNED-PAYLOAD")
    signature = hmac.new(signing_key(secret, date, region),
                         _string_to_sign(stamp, scope, canonical).encode(),
                         hashlib.sha256).hexdigest()
    return f"{parts.scheme}://{parts.netloc}{parts.path}?{query}&X-Amz-Signature={signature}"


def check(method, target, headers, secrets):
    """Why the request (`target`: path and query as sent; `headers`: lower-case names) is not
    signed by a key in `secrets` ({key id: secret}), or None when it is."""
    parts = urllib.parse.urlsplit(target)
    query = dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
    if "X-Amz-Signature" in query:
        key, date, region, _, _ = query["X-Amz-Credential"].split("/")
        stamp, given = query["X-Amz-Date"], query["X-Amz-Signature"]
        signed = query["X-Amz-SignedHeaders"].split(";")
        payload = "UNSIGNED-PAYLOAD"
        leave_out = ("X-Amz-Signature",)
    elif headers.get("authorization", "").startswith(ALGORITHM + " "):
        fields = dict(item.strip().split("=", 1)
                      for item in headers["authorization"][len(ALGORITHM) + 1:].split(","))
        key, date, region, _, _ = fields["Credential"].split("/")
        signed = fields["SignedHeaders"].split(";")
        given, stamp = fields["Signature"], headers.get("x-amz-date", "")
        payload = headers.get("x-amz-content-sha256", "")
        leave_out = ()
    else:
        return "AccessDenied: the request is not signed"
    if key not in secrets:
        return ("InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our "
                "records")
    if any(name not in headers for name in signed):
        return "SignatureDoesNotMatch: A header the request signs is missing"
    scope = f"{date}/{region}/s3/aws4_request"
    canonical = _canonical_request(method, parts.path, parts.query, headers, signed, payload,
                                   leave_out)
    expected = hmac.new(signing_key(secrets[key], date, region),
                        _string_to_sign(stamp, scope, canonical).encode(),
                        hashlib.sha256).hexdigest()
    if hmac.compare_digest(expected, given):
        return None
    return ("SignatureDoesNotMatch: The request signature we calculated does not match the "
            "signature you provided. Check your key and signing method.")
