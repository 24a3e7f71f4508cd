import dspy
def main():
  	print('hi')
main()
