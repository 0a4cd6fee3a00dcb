"""``iotui report``: run records, a comparison or a sweep as one self-contained HTML page (and chart files)."""
