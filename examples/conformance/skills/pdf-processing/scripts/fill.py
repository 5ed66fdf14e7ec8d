import sys

print("filled", sys.argv[1:])
