"""ZXing (zxing-cpp) as the card evaluation's QR peer: reads the image files listed in
the file named by argv[1] (one path per line) and prints, per file and in order, one
JSON list of the QR texts it decoded (an unreadable file prints [])."""
import json
import sys

import zxingcpp
from PIL import Image


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        paths = [line.strip() for line in f if line.strip()]
    for path in paths:
        texts = []
        try:
            with Image.open(path) as img:
                for r in zxingcpp.read_barcodes(img, formats=zxingcpp.BarcodeFormat.QRCode):
                    texts.append(r.text)
        except Exception:  # a file the peer cannot open counts as nothing read
            texts = []
        print(json.dumps(texts, ensure_ascii=False))


if __name__ == "__main__":
    main()
