import StrataSync
print("placeholder")
